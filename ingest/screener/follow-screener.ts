import type { IngestLog } from "../log";
import type { IngestDatabase } from "../db/database";
import { forEachConcurrently } from "../pipeline/for-each-concurrently";
import { repeatUntilAborted } from "../pipeline/periodic";
import { dropLeftovers, movedPartitions, refreshPartition } from "./partitions";

/** How often the follower looks for moved partitions: a minute's quotes reach the screener within it plus their rebuilds. */
const FOLLOW_INTERVAL_MS = 2_000;

/** Partitions built at once: on PostgreSQL each on a connection of its own (PGlite's one connection takes them in turn). */
const CONCURRENT_BUILDS = 2;

/**
 * Rebuilds every partition the market has moved since it was built, two at a time, the longest
 * stale first; their swaps, which lock the whole table, one at a time. Returns how many were
 * swapped in (one another writer swapped meanwhile is left for the next pass).
 */
export async function refreshMovedPartitions(db: IngestDatabase, log: IngestLog): Promise<number> {
  const moved = await movedPartitions(db.typedQuery);
  let swapped = 0;
  let lastSwap: Promise<unknown> = Promise.resolve();
  const swapInTurn = <T>(swap: () => Promise<T>): Promise<T> => {
    const turn = lastSwap.then(swap, swap);
    lastSwap = turn.catch(() => undefined);
    return turn;
  };
  await forEachConcurrently(moved, CONCURRENT_BUILDS, async (partition) => {
    const started = performance.now();
    const built = await refreshPartition(db, partition, swapInTurn);
    if (built) swapped++;
    log({
      event: built ? "screener_refreshed" : "screener_swap_deferred",
      partition: built?.name ?? partition.name,
      lower: partition.lower,
      upper: partition.upper,
      rows: built?.rows,
      ms: Math.round(performance.now() - started),
      ...built?.steps,
    });
  });
  return swapped;
}

/**
 * Keeps the screener following the market while `signal` is not aborted: every few seconds the
 * partitions whose underlyings' quotes moved are rebuilt from the stored market and swapped in.
 * Resolves when stopped. A failed pass is logged and tried again at the next turn.
 */
export async function followScreener(
  db: IngestDatabase,
  options: { log: IngestLog; signal: AbortSignal; intervalMs?: number },
): Promise<void> {
  await dropLeftovers(db.typedQuery);
  await repeatUntilAborted(
    options.signal,
    options.intervalMs ?? FOLLOW_INTERVAL_MS,
    async () => void (await refreshMovedPartitions(db, options.log)),
    (error) => options.log({ event: "screener_refresh_failed", error: error instanceof Error ? error.message : String(error) }),
  );
}
