import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { flowPrints } from "../db/schema";

/**
 * Rows deleted per statement: each statement is short, so its locks and WAL stay small and reads
 * (which MVCC never blocks on a delete anyway) see no long-running transaction.
 */
export const PRUNE_BATCH_ROWS = 20_000;

/** Deletes the prints of sessions before `before` (YYYY-MM-DD), batch by batch; returns how many went. */
export async function pruneFlowPrints(db: Database, before: string, maxBatches = 500): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    // One batch at a time, by design: a job, not a request, and each batch is its own short transaction.
    const result = await db.execute(
      sql`delete from ${flowPrints} where ${flowPrints.id} in (select ${flowPrints.id} from ${flowPrints} where ${flowPrints.sessionDate} < ${before}::date limit ${PRUNE_BATCH_ROWS})`,
    );
    const deleted = result.rowCount ?? 0;
    total += deleted;
    if (deleted < PRUNE_BATCH_ROWS) break;
  }
  return total;
}
