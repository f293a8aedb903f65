import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { accounts, apiKeys, subscriptions } from "../db/schema";
import type { EntitlementSnapshot } from "../domain/entitlement";

/**
 * Reads an account's entitlement snapshot from the control-plane database in one round trip, as
 * one transaction: the version and the state it describes are read together. The active keys and
 * the highest key id come from one statement, so they describe the same moment: every key of the
 * account with an id at or below `maxKeyId` is visible to it (`Keys.create` serialises an account's
 * insertions, so its ids are committed in order), and one of them missing from `activeKeyIds` is
 * revoked or deleted.
 */
export async function loadEntitlementSnapshot(db: Database, accountId: number): Promise<EntitlementSnapshot> {
  const [account, subs, keys] = await db.batch([
    db.select({ version: accounts.snapshotVersion }).from(accounts).where(eq(accounts.id, accountId)),
    db.select().from(subscriptions).where(eq(subscriptions.accountId, accountId)),
    db
      .select({
        active: sql<number[] | null>`array_agg(${apiKeys.id} order by ${apiKeys.id}) filter (where ${apiKeys.revokedAt} is null)`,
        max: sql<number | null>`max(${apiKeys.id})`,
      })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId)),
  ]);
  const sub = subs[0];
  return {
    accountId,
    planId: sub?.planId ?? null,
    status: sub?.status ?? null,
    trialEnd: isoTimestamp(sub?.trialEnd ?? null),
    currentPeriodEnd: isoTimestamp(sub?.currentPeriodEnd ?? null),
    pastDueSince: isoTimestamp(sub?.pastDueSince ?? null),
    updatedAt: isoTimestamp(sub?.updatedAt ?? null),
    activeKeyIds: (keys[0]?.active ?? []).map(Number),
    maxKeyId: Number(keys[0]?.max ?? 0),
    version: account[0]?.version ?? 0,
  };
}
