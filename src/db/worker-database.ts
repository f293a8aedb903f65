import { configFrom, type Bindings, type Config } from "../env";
import { boundQueries, database, useNeonEndpoint, type Database } from "./client";

/** Points the driver at the configured endpoint and bounds every round trip by `QUERY_TIMEOUT_MS`: before any query of the Worker's. */
export function configureDriver(config: Config): void {
  useNeonEndpoint(config.NEON_HTTP_ENDPOINT);
  boundQueries(config.QUERY_TIMEOUT_MS);
}

/** One of the Worker's two databases, from its environment: the one way the Worker, its jobs and its Durable Objects reach Postgres. */
export function workerDatabase(env: Bindings, which: "market" | "control"): Database {
  const config = configFrom(env);
  configureDriver(config);
  return database(which === "market" ? config.MARKET_DATABASE_URL : config.CONTROL_DATABASE_URL);
}
