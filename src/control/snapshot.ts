import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { accounts, apiKeys, subscriptions } from "../db/schema";
import type { EntitlementSnapshot } from "../domain/entitlement";

/**
 * Reads an account's entitlement snapshot from the control-plane database in one round trip, as
 * one transaction: the version and the state it describes are read together.
 */
export async function loadEntitlementSnapshot(db: Database, accountId: number): Promise<EntitlementSnapshot> {
  const [account, subs, active] = await db.batch([
    db.select({ version: accounts.snapshotVersion }).from(accounts).where(eq(accounts.id, accountId)),
    db.select().from(subscriptions).where(eq(subscriptions.accountId, accountId)),
    db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt))),
  ]);
  const sub = subs[0];
  return {
    accountId,
    planId: sub?.planId ?? null,
    status: sub?.status ?? null,
    trialEnd: isoTimestamp(sub?.trialEnd ?? null),
    currentPeriodEnd: isoTimestamp(sub?.currentPeriodEnd ?? null),
    updatedAt: isoTimestamp(sub?.updatedAt ?? null),
    activeKeyIds: active.map((r) => r.id),
    version: account[0]?.version ?? 0,
  };
}
