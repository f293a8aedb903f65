import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { hasCredentialsInUrl } from "../access/credentials";
import { secretsEqual } from "../access/secrets";
import { clientKey, viaEdgeProxy } from "./client-ip";
import { ApiError } from "./errors";

/**
 * With ORIGIN_AUTH_SECRETS set, every request but Stripe's signed webhook must carry one of them in
 * `X-Origin-Auth` and the client's address in `CLIENT_IP_HEADER`: without a valid address, every
 * such request would share one bucket of the per-client limits and lockouts.
 */
export const originAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const config = c.get("config");
  if (viaEdgeProxy(c)) {
    const presented = c.req.header("X-Origin-Auth") ?? "";
    // Every secret is compared so the time taken does not reveal which one matched.
    const matched = config.ORIGIN_AUTH_SECRETS.map((s) => secretsEqual(presented, s)).includes(true);
    if (!matched) throw new ApiError("origin_forbidden", "Requests must arrive through the service's edge.");
    if (clientKey(c.req.header(config.CLIENT_IP_HEADER)) === "unknown")
      throw new ApiError("origin_forbidden", "The service's edge sent no valid client address; the request was refused.");
  }
  await next();
};

/** A key in the URL is already leaked (logs, history, referrers): refuse before anything else, and never echo it. */
export const noCredentialsInQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (hasCredentialsInUrl(new URL(c.req.url))) {
    throw new ApiError(
      "credentials_in_query",
      "API keys and session tokens must not be sent in the URL; use 'Authorization: Bearer <API key>' and rotate the exposed key.",
    );
  }
  await next();
};
