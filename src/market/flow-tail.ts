import { and, asc, eq, gt, gte, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { flowPrints } from "../db/schema";
import { flowPrintColumns, type FlowSelection } from "./flow";

/**
 * The feed as the streams follow it: prints in `id` order, which is commit order (every writer holds
 * `FLOW_WRITERS_LOCK`, src/market/feed-order.ts). So once `id` N is visible, no print with a
 * smaller id can still appear, and "after N" is a position in the feed.
 */
export interface TailRange {
  /** Exclusive: prints with a larger id. */
  after: number;
  /** Inclusive upper bound, when the caller knows how far the feed is committed. */
  through?: number;
}

/** A selection as a shard reads it: `tickers` null is every underlying. */
export type TailSelection = Omit<FlowSelection, "tickers"> & { tickers: readonly string[] | null };

/** The standing prints of a range that match, in feed order, at most `limit`. Served by the key (`id`, session) of each partition. */
export function flowTailQuery(db: Database, range: TailRange, selection: TailSelection, limit: number) {
  const tickers = selection.tickers;
  return db
    .select({ id: flowPrints.id, printClass: flowPrints.printClass, ...flowPrintColumns })
    .from(flowPrints)
    .where(
      and(
        gt(flowPrints.id, range.after),
        range.through !== undefined ? lte(flowPrints.id, range.through) : undefined,
        tickers === null
          ? undefined
          : tickers.length === 1
            ? eq(flowPrints.ticker, tickers[0] as string)
            : inArray(flowPrints.ticker, [...tickers]),
        selection.sentiment !== undefined ? eq(flowPrints.sentiment, selection.sentiment) : undefined,
        selection.side !== undefined ? eq(flowPrints.side, selection.side) : undefined,
        selection.optionType !== undefined ? eq(flowPrints.optionType, selection.optionType) : undefined,
        selection.executionType !== undefined ? eq(flowPrints.executionType, selection.executionType) : undefined,
        gte(flowPrints.premium, selection.minPremium),
        sql`${flowPrints.printClass} <> 'canceled'`,
      ),
    )
    .orderBy(asc(flowPrints.id))
    .limit(limit);
}

/** How far the feed is committed: the largest visible id (0 when empty). One backward probe of each partition's key. */
export function feedHighWaterQuery(db: Database) {
  return db.select({ id: sql<number>`coalesce(max(${flowPrints.id}), 0)::float8` }).from(flowPrints);
}

/** The session of the feed at a position: the newest of the prints at or before it (none for an empty feed). */
export function sessionAtQuery(db: Database, position: number) {
  return db
    .select({ session: flowPrints.sessionDate })
    .from(flowPrints)
    .where(lte(flowPrints.id, position))
    .orderBy(sql`${flowPrints.id} desc`)
    .limit(1);
}
