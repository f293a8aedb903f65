import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { flowPrints } from "../db/schema";
import { expiredFlowPartitions } from "./flow-partitions";

/**
 * Rows deleted per statement: each statement is short, so its locks and WAL stay small and reads
 * (which MVCC never blocks on a delete anyway) see no long-running transaction.
 */
export const PRUNE_BATCH_ROWS = 20_000;

/**
 * How long dropping a session's partition waits for its lock on `flow_prints` (readers queue
 * behind a waiting drop): past it the drop fails, and the next run tries again.
 */
const DROP_LOCK_TIMEOUT = "1s";

/**
 * Removes the prints of sessions before `before` (YYYY-MM-DD): their partitions dropped whole, then
 * what the default partition holds of them deleted batch by batch; returns how many went.
 */
export async function pruneFlowPrints(db: Database, before: string, maxBatches = 500): Promise<number> {
  let total = 0;
  const expired = await db.execute(sql.raw(expiredFlowPartitions(before)));
  for (const { name } of expired.rows as { name: string }[]) {
    const counted = await db.execute(sql`select count(*)::int as n from ${sql.identifier(name)}`);
    await db.execute(sql.raw(`do $$ begin perform set_config('lock_timeout', '${DROP_LOCK_TIMEOUT}', true); drop table ${name}; end $$`));
    total += (counted.rows[0] as { n: number }).n;
  }
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
