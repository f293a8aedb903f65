import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Echoes a client-supplied UUID in `X-Request-ID`, else issues one; on every response. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const supplied = c.req.header("X-Request-ID")?.trim();
  const id = supplied && UUID.test(supplied) ? supplied : crypto.randomUUID();
  c.set("requestId", id);
  await next();
  c.res.headers.set("X-Request-ID", id);
};
