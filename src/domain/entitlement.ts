import type { EntitlementReason } from "./entitlement-reasons";
import { planById } from "./plans";
import { DAY_MS } from "./time";

/** What the control plane knows about an account's access; pushed to its Durable Object. */
export interface EntitlementSnapshot {
  accountId: number;
  /** Null when the account has no subscription record. */
  planId: string | null;
  status: string | null;
  trialEnd: string | null;
  currentPeriodEnd: string | null;
  /** The first transition into `past_due` of the current unpaid spell: the start of the grace period. */
  pastDueSince?: string | null;
  /** When the subscription row last changed: the grace's start when `pastDueSince` is unknown (older snapshots). */
  updatedAt: string | null;
  /**
   * The keys that may call, an allowlist: a revoked key, and a key row deleted by hand, are
   * refused alike. A key created after this snapshot was taken makes the object reload it.
   */
  activeKeyIds: number[];
  /**
   * The highest key id the account has ever been issued when the snapshot was read: an unlisted
   * id at or below it is revoked (or deleted) for good, one above it was issued after the snapshot.
   * Absent from snapshots stored before it existed (read as 0: every unlisted key reloads).
   */
  maxKeyId?: number;
  /** `accounts.snapshot_version` when read: of two snapshots, the higher version is the newer. */
  version: number;
}

export type Entitlement = { entitled: true } | { entitled: false; reason: EntitlementReason; requiredPlan?: string };

/**
 * Days a `past_due` subscription keeps access while the payment provider retries, counted from its
 * first transition into `past_due` (never from the period end, which the provider has already moved on).
 */
export const PAST_DUE_GRACE_DAYS = 7;

/** The plan an upgrade should name when the account's plan does not include the API. */
export const API_PLAN = "basic";

/**
 * Entitled: `active` (any catalogued plan), `trialing` before the trial ends, and `past_due`
 * for `PAST_DUE_GRACE_DAYS` after `pastDueSince`. A trial plan past its end is `trial_ended` whatever the status;
 * every other status (`canceled`, `unpaid`, `incomplete`, `incomplete_expired`, `paused`, …) is
 * `subscription_inactive`.
 */
export function evaluateEntitlement(s: EntitlementSnapshot, now: number): Entitlement {
  if (s.planId === null || s.status === null) return { entitled: false, reason: "subscription_required" };
  const plan = planById(s.planId);
  if (!plan) return { entitled: false, reason: "plan_upgrade_required", requiredPlan: API_PLAN };
  const trialOver = s.trialEnd !== null && Date.parse(s.trialEnd) <= now;
  if (plan.trialDays !== null && trialOver) return { entitled: false, reason: "trial_ended" };
  switch (s.status) {
    case "active":
      return { entitled: true };
    case "trialing":
      return s.trialEnd !== null && !trialOver ? { entitled: true } : { entitled: false, reason: "trial_ended" };
    case "past_due": {
      const since = Date.parse(s.pastDueSince ?? s.updatedAt ?? "");
      return Number.isFinite(since) && now < since + PAST_DUE_GRACE_DAYS * DAY_MS
        ? { entitled: true }
        : { entitled: false, reason: "subscription_inactive" };
    }
    default:
      return { entitled: false, reason: "subscription_inactive" };
  }
}
