import type { EntitlementReason } from "../domain/entitlement-reasons";

/** Rate-limit state as the X-RateLimit-* headers report it. */
export interface RateState {
  limit: number;
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
}

export interface EntitlementView {
  plan: string | null;
  subscriptionStatus: string | null;
  entitled: boolean;
  reason: EntitlementReason | "";
  requiredPlan?: string;
}

export interface AdmitRequest {
  accountId: number;
  keyId: number;
  /** Whether the route needs an entitled account (all data routes) or only a valid key. */
  requireEntitlement: boolean;
}

/**
 * Requests to count without an in-flight slot (`meter`): `/mcp`'s messages, `cost` of them, each
 * under a data route's entitlement.
 */
export interface MeterRequest extends Omit<AdmitRequest, "requireEntitlement"> {
  cost: number;
}

/** Whether a key is on its account's allowlist: `revoked` is final, as in `AdmitResult`. */
export type KeyCheck = { kind: "active" } | { kind: "revoked" } | { kind: "unknown_key" };

/** `standing`'s answer: whether a key may keep a stream open. */
export type KeyStanding = KeyCheck | { kind: "not_entitled"; entitlement: EntitlementView };

/** The account Durable Object's single answer on the hot path. */
export type AdmitResult =
  /** The key was revoked (or its row deleted): final, the edge may remember it. */
  | { kind: "revoked" }
  /** The key is not on the account's allowlist and was issued after the snapshot held (or never): refused, not remembered. */
  | { kind: "unknown_key" }
  | { kind: "not_entitled"; entitlement: EntitlementView }
  | { kind: "rate_limited"; rate: RateState; retryAfterSeconds: number }
  | { kind: "too_many_concurrent"; rate: RateState }
  | { kind: "admitted"; rate: RateState; leaseId: string; entitlement: EntitlementView; usage: UsageView };

/** `meter`'s answer: `admit`'s refusals but the in-flight cap, which metering does not touch. */
export type MeterResult =
  | Exclude<AdmitResult, { kind: "too_many_concurrent" } | { kind: "admitted" }>
  | { kind: "metered"; rate: RateState; entitlement: EntitlementView; usage: UsageView };

export interface UsageView {
  /** ET date the counter belongs to. */
  date: string;
  today: number;
  resetAt: string;
}

/** An account's snapshot older than this is reloaded: the bound on how long a lost push can go unnoticed. */
export const SNAPSHOT_MAX_AGE_MS = 60_000;
/** A key the snapshot does not list, with an id above the highest it knows, makes the object reload it, at most this often. */
export const UNKNOWN_KEY_RELOAD_MS = 1_000;
/** A lost release frees its slot after this long; longer than any request may run. */
export const LEASE_MS = 30_000;
