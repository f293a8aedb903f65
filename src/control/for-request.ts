import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { controlDatabase } from "../db/for-request";
import { ControlPlane } from "./control-plane";

/** The control plane wired to this request's database and the accounts' Durable Objects. */
export function controlPlaneFor(c: Context<AppEnv>): ControlPlane {
  const env = c.env;
  return new ControlPlane(controlDatabase(c), {
    pushSnapshot: (accountId, snapshot) => env.ACCOUNT_LIMITER.getByName(String(accountId)).pushSnapshot(snapshot),
  });
}
