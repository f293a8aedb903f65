import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { readCredentials } from "../auth/credentials";
import { resolveKey } from "../auth/resolve-key";
import { displayPrefix } from "../auth/api-key";
import { database } from "../db/client";
import type { AdmitResult } from "../limits/admission";
import { clientIp } from "./client-ip";
import { ApiError } from "./errors";
import { rateHeaders, setRateHeaders } from "./limit-headers";
import type { Access } from "./route";

const REALM = 'realm="options-data-service"';

/** Addresses this isolate has seen locked out, so valid keys from them are refused without a lookup. */
const lockedOut = new Map<string, number>();
const MAX_LOCKED_REMEMBERED = 10_000;

function unauthorized(code: "missing_api_key" | "invalid_api_key", message: string): ApiError {
  const challenge =
    code === "missing_api_key"
      ? `Bearer ${REALM}`
      : `Bearer ${REALM}, error="invalid_token", error_description="${message.replace(/"/g, "'")}"`;
  return new ApiError(code, message, { headers: { "WWW-Authenticate": challenge } });
}

function lockedError(retryAfterSeconds: number): ApiError {
  return new ApiError("too_many_auth_failures", "Too many failed authentication attempts from this address; try again later.", {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

/** Per-IP limit of the unauthenticated routes (Workers Rate Limiting binding). */
const publicGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { success } = await c.env.PUBLIC_RATE_LIMITER.limit({ key: clientIp(c) });
  if (!success) {
    throw new ApiError("rate_limited", "Too many requests from this address; slow down.", { headers: { "Retry-After": "60" } });
  }
  await next();
};

/**
 * Authentication, then one call to the account's Durable Object (revocation, entitlement, rate
 * limit, in-flight cap, daily count), then the handler, then the release of the in-flight slot.
 */
function accountGate(requireEntitlement: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ip = clientIp(c);
    const lockedUntil = lockedOut.get(ip);
    if (lockedUntil !== undefined) {
      if (lockedUntil > Date.now()) throw lockedError(Math.ceil((lockedUntil - Date.now()) / 1000));
      lockedOut.delete(ip);
    }
    const fail = async (code: "missing_api_key" | "invalid_api_key", message: string): Promise<never> => {
      const state = await c.env.AUTH_GUARD.getByName(ip).recordFailure();
      if (state.locked) {
        // Bounded: under a wide attack the guard objects still hold every lockout.
        if (lockedOut.size >= MAX_LOCKED_REMEMBERED) lockedOut.delete(lockedOut.keys().next().value as string);
        lockedOut.set(ip, Date.now() + state.retryAfterSeconds * 1000);
        throw lockedError(state.retryAfterSeconds);
      }
      throw unauthorized(code, message);
    };

    const credentials = readCredentials(c.req.header("Authorization"));
    if (credentials.kind === "missing") return fail("missing_api_key", "An API key is required: send 'Authorization: Bearer <API key>'.");
    if (credentials.kind === "session_token") {
      throw new ApiError("wrong_credential_type", "Dashboard session tokens cannot call the API; use an API key.");
    }
    if (credentials.kind === "invalid") return fail("invalid_api_key", credentials.reason);

    const config = c.get("config");
    const identity = await resolveKey(
      credentials.key,
      c.env.KEY_CACHE,
      () => database(config.CONTROL_DATABASE_URL),
      (p) => c.executionCtx.waitUntil(p),
    );
    if (!identity || identity.revoked) return fail("invalid_api_key", "The API key is not valid or has been revoked.");

    const limiter = c.env.ACCOUNT_LIMITER.getByName(String(identity.accountId));
    const result: AdmitResult = await limiter.admit({ accountId: identity.accountId, keyId: identity.keyId, requireEntitlement });
    switch (result.kind) {
      case "revoked":
        return fail("invalid_api_key", "The API key is not valid or has been revoked.");
      case "not_entitled": {
        const { reason, requiredPlan } = result.entitlement;
        throw new ApiError(reason || "subscription_required", ENTITLEMENT_MESSAGES[reason || "subscription_required"], {
          fields: requiredPlan ? { required_plan: requiredPlan } : {},
        });
      }
      case "rate_limited":
        throw new ApiError("rate_limited", "Per-minute request limit reached for this account.", {
          headers: { "Retry-After": String(result.retryAfterSeconds), ...rateHeaders(result.rate) },
        });
      case "too_many_concurrent":
        throw new ApiError("too_many_concurrent_requests", "Too many requests in flight for this account; wait for one to finish.", {
          headers: { "Retry-After": "1", ...rateHeaders(result.rate) },
        });
      case "admitted":
        break;
    }

    c.set("account", {
      accountId: identity.accountId,
      keyId: identity.keyId,
      keyPrefix: displayPrefix(credentials.key),
      entitlement: result.entitlement,
      usage: result.usage,
    });
    try {
      await next();
    } finally {
      setRateHeaders(c.res.headers, result.rate);
      c.executionCtx.waitUntil(limiter.release(result.leaseId));
    }
  };
}

const ENTITLEMENT_MESSAGES = {
  subscription_required: "This account has no subscription; start a trial or subscribe to Basic in the dashboard.",
  subscription_inactive: "This account's subscription is not active; update billing in the dashboard.",
  trial_ended: "The free trial has ended; subscribe to Basic in the dashboard to continue.",
  plan_upgrade_required: "This account's plan does not include the API; upgrade in the dashboard.",
} as const;

/** The middleware that enforces a route's access level. */
export function accessGate(access: Exclude<Access, "admin">): MiddlewareHandler<AppEnv> {
  if (access === "public") return publicGate;
  return accountGate(access === "entitled");
}
