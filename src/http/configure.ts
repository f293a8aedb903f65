import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { boundQueries, useNeonEndpoint } from "../db/client";
import { configFrom } from "../env";

/** Validates the bindings (once per isolate) inside the pipeline, so a bad deploy answers 500, not a crash. */
export const configure: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = configFrom(c.env);
  useNeonEndpoint(config.NEON_HTTP_ENDPOINT);
  boundQueries(config.QUERY_TIMEOUT_MS);
  c.set("config", config);
  await next();
};
