import { and, asc, eq, gt, gte, lte, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { optionQuotes } from "../db/schema";
import { optionQuoteColumns } from "./option-quotes";
import { readWithSnapshot, type Derived, type MarketRead } from "./snapshot";
import { underlyingQuery } from "./underlyings";

export interface ChainFilter {
  symbol: string;
  expiration?: string;
  /** Inclusive expiration bounds derived from the DTE window. */
  expirationFrom?: string;
  expirationTo?: string;
  side?: "call" | "put";
  strikeMin?: number;
  strikeMax?: number;
  absDeltaMin?: number;
  absDeltaMax?: number;
  minOpenInterest?: number;
  minVolume?: number;
  /** Only contracts not yet expired on `today` once `settled` of its settlement instants have passed (`settlementPhase`). */
  unexpired?: { today: string; settled: 0 | 1 | 2 };
}

/** Contracts that have not expired: later expirations, and today's whose settlement instant (AM at the open, PM at the close) is ahead. */
function unexpiredCondition({ today, settled }: { today: string; settled: 0 | 1 | 2 }): SQL | undefined {
  if (settled === 0) return gte(optionQuotes.expiration, today);
  if (settled === 1)
    return or(gt(optionQuotes.expiration, today), and(eq(optionQuotes.expiration, today), eq(optionQuotes.settlement, "pm")));
  return gt(optionQuotes.expiration, today);
}

/** The position after the last row of a page: (expiration, strike, side, root) is unique per underlying. */
export type ChainKey = [expiration: string, strike: number, side: string, root: string];

/**
 * One page of a chain in (expiration, strike, side, root) order after `after`, `limit + 1` rows
 * so the caller can tell whether more match. Served by `option_quotes_chain_idx`.
 */
export function chainPageQuery(db: Database, f: ChainFilter, after: ChainKey | null, limit: number) {
  const conditions: (SQL | undefined)[] = [
    eq(optionQuotes.underlying, f.symbol),
    f.expiration !== undefined ? eq(optionQuotes.expiration, f.expiration) : undefined,
    f.expirationFrom !== undefined ? gte(optionQuotes.expiration, f.expirationFrom) : undefined,
    f.expirationTo !== undefined ? lte(optionQuotes.expiration, f.expirationTo) : undefined,
    f.side !== undefined ? eq(optionQuotes.side, f.side) : undefined,
    f.strikeMin !== undefined ? gte(optionQuotes.strike, f.strikeMin) : undefined,
    f.strikeMax !== undefined ? lte(optionQuotes.strike, f.strikeMax) : undefined,
    f.absDeltaMin !== undefined ? sql`abs(${optionQuotes.delta}) >= ${f.absDeltaMin}` : undefined,
    f.absDeltaMax !== undefined ? sql`abs(${optionQuotes.delta}) <= ${f.absDeltaMax}` : undefined,
    f.minOpenInterest !== undefined ? gte(optionQuotes.openInterest, f.minOpenInterest) : undefined,
    f.minVolume !== undefined ? gte(optionQuotes.volume, f.minVolume) : undefined,
    f.unexpired !== undefined ? unexpiredCondition(f.unexpired) : undefined,
    after
      ? sql`(${optionQuotes.expiration}, ${optionQuotes.strike}, ${optionQuotes.side}, ${optionQuotes.root}) > (${after[0]}::date, ${after[1]}::float8, ${after[2]}::text, ${after[3]}::text)`
      : undefined,
  ];
  return db
    .select({ ...optionQuoteColumns, root: optionQuotes.root })
    .from(optionQuotes)
    .where(and(...conditions))
    .orderBy(asc(optionQuotes.expiration), asc(optionQuotes.strike), asc(optionQuotes.side), asc(optionQuotes.root))
    .limit(limit + 1);
}

export type ChainRow = Awaited<ReturnType<typeof chainPageQuery>>[number];

/** A chain page as of the snapshot it was read under, and whether the underlying exists, in one round trip. */
export async function readChainPage(
  read: MarketRead,
  f: ChainFilter,
  after: ChainKey | null,
  limit: number,
): Promise<Derived<{ exists: boolean; underlyingPrice: number | null; rows: ChainRow[] }>> {
  const { db } = read;
  const {
    snapshot,
    rows: [underlying, rows],
  } = await readWithSnapshot(read, [underlyingQuery(db, f.symbol), chainPageQuery(db, f, after, limit)]);
  return { snapshot, value: { exists: underlying.length > 0, underlyingPrice: underlying[0]?.price ?? null, rows } };
}
