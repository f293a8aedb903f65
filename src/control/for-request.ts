import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { database } from "../db/client";
import { ControlPlane } from "./control-plane";

/** The control plane wired to this request's database and the accounts' Durable Objects. */
export function controlPlaneFor(c: Context<AppEnv>): ControlPlane {
  const env = c.env;
  return new ControlPlane(database(c.get("config").CONTROL_DATABASE_URL), {
    pushSnapshot: (accountId, snapshot) => env.ACCOUNT_LIMITER.getByName(String(accountId)).pushSnapshot(snapshot),
  });
}
