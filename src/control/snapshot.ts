import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { apiKeys, subscriptions } from "../db/schema";
import type { EntitlementSnapshot } from "../domain/entitlement";

/** Reads an account's entitlement snapshot from the control-plane database (one round trip). */
export async function loadEntitlementSnapshot(db: Database, accountId: number): Promise<EntitlementSnapshot> {
  const [subs, revoked] = await db.batch([
    db.select().from(subscriptions).where(eq(subscriptions.accountId, accountId)),
    db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNotNull(apiKeys.revokedAt))),
  ]);
  const sub = subs[0];
  return {
    accountId,
    planId: sub?.planId ?? null,
    status: sub?.status ?? null,
    trialEnd: isoTimestamp(sub?.trialEnd ?? null),
    currentPeriodEnd: isoTimestamp(sub?.currentPeriodEnd ?? null),
    updatedAt: isoTimestamp(sub?.updatedAt ?? null),
    revokedKeyIds: revoked.map((r) => r.id),
  };
}
