import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { configureDriver } from "../db/worker-database";
import { configFrom } from "../env";

/** Validates the bindings (once per isolate) inside the pipeline, so a bad deploy answers 500, not a crash. */
export const configure: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = configFrom(c.env);
  configureDriver(config);
  c.set("config", config);
  await next();
};
