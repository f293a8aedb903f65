import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { marketState } from "../db/schema";

/** The loaded market snapshot: its version (moves on every load; every cache of market data is keyed by it) and time. */
export interface MarketSnapshot {
  version: number;
  asOf: string | null;
}

/** A value computed from one market snapshot, with that snapshot. */
export interface Derived<T> {
  snapshot: MarketSnapshot;
  value: T;
}

export function snapshotQuery(db: Database) {
  return db.select({ version: marketState.version, asOf: marketState.asOf }).from(marketState).limit(1);
}

/**
 * Runs the caller's statements and the snapshot read in one database round trip, so what is
 * computed from them is keyed by the snapshot they were read under.
 */
export async function readWithSnapshot<T extends readonly BatchItem<"pg">[]>(
  db: Database,
  statements: [...T],
): Promise<{ snapshot: MarketSnapshot; rows: BatchResponse<T> }> {
  const [snapshotRows, ...rows] = await db.batch([snapshotQuery(db), ...statements] as [BatchItem<"pg">, ...BatchItem<"pg">[]]);
  const [row] = snapshotRows as Awaited<ReturnType<typeof snapshotQuery>>;
  return { snapshot: { version: row?.version ?? 0, asOf: row?.asOf ?? null }, rows: rows as BatchResponse<T> };
}
