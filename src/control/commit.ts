import { eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { accounts } from "../db/schema";
import type { EntitlementSnapshot } from "../domain/entitlement";
import { loadEntitlementSnapshot } from "./snapshot";

/** The account's Durable Object, as the control plane sees it. */
export interface SnapshotSink {
  pushSnapshot(accountId: number, snapshot: EntitlementSnapshot): Promise<void>;
}

/**
 * The account a change is to: its id, or a scalar subquery that finds it once the change's own
 * statements have run (the same transaction sees them), for a change known by another row's id.
 */
export type AccountRef = number | SQL;

/** The statements' results (the version bump's excluded), and the account that was bumped and pushed, if any. */
export interface Committed<T extends BatchItem<"pg">[]> {
  results: BatchResponse<T>;
  accountId: number | undefined;
}

/**
 * The one way the control plane writes: `statements` and the move of the account's snapshot
 * version run as one batch (one transaction), then the account's new snapshot is pushed to its
 * Durable Object. An account ref that matches no account bumps and pushes nothing.
 */
export type Commit = <T extends BatchItem<"pg">[]>(account: AccountRef, statements: [...T]) => Promise<Committed<T>>;

export function committer(db: Database, sink: SnapshotSink): Commit {
  return async (account, statements) => {
    const bump = db
      .update(accounts)
      .set({ snapshotVersion: sql`${accounts.snapshotVersion} + 1` })
      .where(eq(accounts.id, account))
      .returning({ id: accounts.id });
    const results = await db.batch([...statements, bump] as unknown as readonly [BatchItem<"pg">, ...BatchItem<"pg">[]]);
    const bumped = results.at(-1) as { id: number }[];
    const accountId = bumped[0]?.id;
    if (accountId !== undefined) await push(db, sink, accountId);
    return { results: results.slice(0, -1) as BatchResponse<typeof statements>, accountId };
  };
}

/**
 * Tells the account's object about a committed change (twice at most). A push that still fails
 * does not fail the change: the object reloads its snapshot when it is older than
 * `SNAPSHOT_MAX_AGE_MS`, so the change holds everywhere within that bound (and one request).
 */
async function push(db: Database, sink: SnapshotSink, accountId: number): Promise<void> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await sink.pushSnapshot(accountId, await loadEntitlementSnapshot(db, accountId));
      return;
    } catch (err) {
      if (attempt === 2) {
        const reason = err instanceof Error ? err.name : "unknown";
        console.warn(JSON.stringify({ level: "warn", event: "snapshot_push_failed", accountId, reason }));
      }
    }
  }
}
