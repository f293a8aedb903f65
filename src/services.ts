import type { Context } from "hono";
import type { AppEnv } from "./app-env";
import { ControlPlane } from "./control/control-plane";
import type { Database } from "./db/client";
import { workerDatabase } from "./db/worker-database";
import type { EdgeScope } from "./edge-cache/scope";

/** What a request's handlers work with, wired from its configuration and bindings: the one place that does. */
export interface Services {
  /** The market database (quotes, chains, flow, calendars). */
  market: Database;
  /** The control-plane database (accounts, keys, subscriptions, sessions, usage), for reads. */
  control: Database;
  /** Every control-plane write, each committed with its account's snapshot version and pushed to its Durable Object. */
  controlPlane: ControlPlane;
  /** The edge cache of market data, over the market database. */
  edge: EdgeScope;
}

const wired = new WeakMap<object, Services>();

/** This request's services, wired once per request. */
export function services<E extends AppEnv>(c: Context<E>): Services {
  let found = wired.get(c);
  if (!found) {
    const market = workerDatabase(c.env, "market");
    const control = workerDatabase(c.env, "control");
    const limiters = c.env.ACCOUNT_LIMITER;
    found = {
      market,
      control,
      controlPlane: new ControlPlane(control, {
        pushSnapshot: (accountId, snapshot) => limiters.getByName(String(accountId)).pushSnapshot(snapshot),
      }),
      edge: { cache: c.env.MARKET_CACHE, waitUntil: (work) => c.executionCtx.waitUntil(work), market },
    };
    wired.set(c, found);
  }
  return found;
}
