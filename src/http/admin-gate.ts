import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { secretsEqual } from "../auth/secrets";
import { ApiError } from "./errors";

/** The internal admin API: `Authorization: Bearer <ADMIN_TOKEN>`; absent entirely when no token is configured. */
export const adminGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = c.get("config").ADMIN_TOKEN;
  if (!token) throw new ApiError("not_found", `No endpoint at ${c.req.path}.`);
  const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization")?.trim() ?? "")?.[1] ?? "";
  if (!secretsEqual(presented, token)) {
    throw new ApiError("invalid_api_key", "The admin token is missing or wrong.", {
      headers: { "WWW-Authenticate": 'Bearer realm="options-data-service-admin"' },
    });
  }
  await next();
};
