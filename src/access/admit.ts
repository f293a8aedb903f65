import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "../http/errors";
import { rateHeaders } from "../http/limit-headers";
import type { EntitlementReason } from "../domain/entitlement-reasons";
import type { AdmitResult, KeyCheck, MeterResult } from "../limits/admission";
import { authenticationFailed, REVOKED_OR_UNKNOWN } from "./authenticate";
import { rememberRevoked, type KeyIdentity, type ResolvedKey } from "./resolve-key";

const ENTITLEMENT_MESSAGES: Record<EntitlementReason, string> = {
  subscription_required: "This account has no subscription; start a trial or subscribe to Basic in the dashboard.",
  subscription_inactive: "This account's subscription is not active; update billing in the dashboard.",
  trial_ended: "The free trial has ended; subscribe to Basic in the dashboard to continue.",
  plan_upgrade_required: "This account's plan does not include the API; upgrade in the dashboard.",
};

export type Admitted = Extract<AdmitResult, { kind: "admitted" }>;
export type Metered = Extract<MeterResult, { kind: "metered" }>;

/** The 401 of a key its account's object does not list; a revoked one is remembered, so the next attempt never reaches the object. */
function refuseKey(c: Context<AppEnv>, identity: ResolvedKey, state: Exclude<KeyCheck, { kind: "active" }>): Promise<never> {
  if (state.kind === "revoked") rememberRevoked(identity, c.env.KEY_CACHE, (p) => c.executionCtx.waitUntil(p));
  return authenticationFailed(c, "invalid_api_key", REVOKED_OR_UNKNOWN);
}

/** The spec's error for each refusal of the account's Durable Object. */
function refuse(c: Context<AppEnv>, identity: ResolvedKey, result: Exclude<AdmitResult, { kind: "admitted" }>): Promise<never> {
  switch (result.kind) {
    case "revoked":
    case "unknown_key":
      return refuseKey(c, identity, result);
    case "not_entitled": {
      const reason = result.entitlement.reason || "subscription_required";
      const requiredPlan = result.entitlement.requiredPlan;
      throw new ApiError(reason, ENTITLEMENT_MESSAGES[reason], { fields: requiredPlan ? { required_plan: requiredPlan } : {} });
    }
    case "rate_limited":
      throw new ApiError("rate_limited", "Per-minute request limit reached for this account.", {
        headers: { "Retry-After": String(result.retryAfterSeconds), ...rateHeaders(result.rate) },
      });
    case "too_many_concurrent":
      throw new ApiError("too_many_concurrent_requests", "Too many requests in flight for this account; wait for one to finish.", {
        headers: { "Retry-After": "1", ...rateHeaders(result.rate) },
      });
  }
}

const limiterOf = (c: Context<AppEnv>, identity: KeyIdentity) => c.env.ACCOUNT_LIMITER.getByName(String(identity.accountId));

/**
 * One call to the account's Durable Object (revocation, entitlement, rate limit, in-flight cap,
 * daily count), mapped to the spec's errors; the admitted result carries the lease to release.
 */
export async function admit(c: Context<AppEnv>, identity: ResolvedKey, requireEntitlement: boolean): Promise<Admitted> {
  const result = await limiterOf(c, identity).admit({ accountId: identity.accountId, keyId: identity.keyId, requireEntitlement });
  return result.kind === "admitted" ? result : refuse(c, identity, result);
}

/** `cost` requests counted as `admit` counts one, with a data route's entitlement, but no in-flight slot taken. */
export async function meter(c: Context<AppEnv>, identity: ResolvedKey, cost: number): Promise<Metered> {
  const result = await limiterOf(c, identity).meter({ accountId: identity.accountId, keyId: identity.keyId, cost });
  return result.kind === "metered" ? result : refuse(c, identity, result);
}

/** Frees the in-flight slot once the response is done, whatever happened. */
export function release(c: Context<AppEnv>, identity: KeyIdentity, leaseId: string): void {
  c.executionCtx.waitUntil(limiterOf(c, identity).release(leaseId));
}
