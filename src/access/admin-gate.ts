import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { noEndpoint } from "../http/errors";
import { authenticationFailed } from "./authenticate";
import { secretsEqual } from "./secrets";

const ADMIN_REALM = 'realm="options-data-service-admin"';

/**
 * The internal admin API: `Authorization: Bearer <ADMIN_TOKEN>`; absent entirely when no token
 * is configured. A wrong token counts against the address like a wrong API key.
 */
export const adminGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = c.get("config").ADMIN_TOKEN;
  if (!token) throw noEndpoint(c.req.path);
  const presented = /^Bearer\s+(\S+)$/i.exec(c.req.header("Authorization")?.trim() ?? "")?.[1] ?? "";
  if (!secretsEqual(presented, token))
    await authenticationFailed(c, "invalid_api_key", "The admin token is missing or wrong.", ADMIN_REALM);
  await next();
};
