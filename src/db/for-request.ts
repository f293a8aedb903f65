import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { database, type Database } from "./client";

/** The market database of this request's configuration. */
export function marketDatabase(c: Context<AppEnv>): Database {
  return database(c.get("config").MARKET_DATABASE_URL);
}

/** The control-plane database (accounts, keys, subscriptions) of this request's configuration. */
export function controlDatabase(c: Context<AppEnv>): Database {
  return database(c.get("config").CONTROL_DATABASE_URL);
}
