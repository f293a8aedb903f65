import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { limitsFor } from "../domain/plans";
import { clientIp } from "../http/client-ip";
import { ApiError } from "../http/errors";
import { setRateHeaders } from "../http/limit-headers";
import type { Access } from "../http/route";
import { displayPrefix } from "../domain/api-key";
import { admit, meter, release } from "./admit";
import { authenticate } from "./authenticate";
import { LIMITER_RETRY_AFTER_SECONDS } from "../http/limiter-window";

/** Per-IP limit of the unauthenticated routes (Workers Rate Limiting binding). */
const publicGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: clientIp(c) });
  if (!success) {
    throw new ApiError("rate_limited", "Too many requests from this address; slow down.", {
      headers: { "Retry-After": LIMITER_RETRY_AFTER_SECONDS },
    });
  }
  await next();
};

/** Authentication, admission by the account's Durable Object, the handler, then the release of the in-flight slot. */
function accountGate(requireEntitlement: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const identity = await authenticate(c);
    const admitted = await admit(c, identity, requireEntitlement);
    c.set("account", {
      accountId: identity.accountId,
      keyId: identity.keyId,
      keyPrefix: displayPrefix(identity.key),
      entitlement: admitted.entitlement,
      limits: limitsFor(admitted.entitlement.plan),
      usage: admitted.usage,
    });
    try {
      await next();
    } finally {
      setRateHeaders(c.res.headers, admitted.rate);
      // An account's data and limits: never for shared caches, never kept.
      c.res.headers.set("Cache-Control", "private, no-store");
      release(c, identity, admitted.leaseId);
    }
  };
}

/** The middleware that enforces a route's access level (the admin API has its own gate). */
export function accessGate(access: Exclude<Access, "admin">): MiddlewareHandler<AppEnv> {
  if (access === "public") return publicGate;
  return accountGate(access === "entitled");
}

/**
 * The gate of `/mcp`: authentication, then the request counted once against the account's limit
 * with a data route's entitlement, before anything of it is read. No in-flight slot: the messages
 * are answered at once, and each tool call takes its slot as the REST request it runs. `meter`
 * counts more of the request (a batch's further messages); the rate headers report the last count.
 */
export const meteredGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const identity = await authenticate(c);
  let rate = (await meter(c, identity, 1)).rate;
  c.set("meter", async (cost) => {
    rate = (await meter(c, identity, cost)).rate;
  });
  try {
    await next();
  } finally {
    setRateHeaders(c.res.headers, rate);
    c.res.headers.set("Cache-Control", "private, no-store");
  }
};
