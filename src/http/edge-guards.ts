import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { hasCredentialsInUrl } from "../access/credentials";
import { secretsEqual } from "../access/secrets";
import { ApiError } from "./errors";

/** With ORIGIN_AUTH_SECRETS set, every request must carry one of them in `X-Origin-Auth`. */
export const originAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secrets = c.get("config").ORIGIN_AUTH_SECRETS;
  if (secrets.length > 0) {
    const presented = c.req.header("X-Origin-Auth") ?? "";
    // Every secret is compared so the time taken does not reveal which one matched.
    const matched = secrets.map((s) => secretsEqual(presented, s)).includes(true);
    if (!matched) throw new ApiError("origin_forbidden", "Requests must arrive through the service's edge.");
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
