import { and, asc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { equityQuotes, marketState, optionQuotes, underlyings } from "../db/schema";

/** The columns every option-quote query selects, in `OptionQuoteRow` shape. */
export const optionQuoteColumns = {
  optionSymbol: optionQuotes.optionSymbol,
  underlying: optionQuotes.underlying,
  expiration: optionQuotes.expiration,
  strike: optionQuotes.strike,
  side: optionQuotes.side,
  bid: optionQuotes.bid,
  ask: optionQuotes.ask,
  last: optionQuotes.last,
  volume: optionQuotes.volume,
  openInterest: optionQuotes.openInterest,
  iv: optionQuotes.iv,
  delta: optionQuotes.delta,
  gamma: optionQuotes.gamma,
  theta: optionQuotes.theta,
  vega: optionQuotes.vega,
  rho: optionQuotes.rho,
  underlyingPrice: optionQuotes.underlyingPrice,
  asOf: optionQuotes.asOf,
};

export function snapshotQuery(db: Database) {
  return db.select({ version: marketState.version, asOf: marketState.asOf }).from(marketState).limit(1);
}

export function underlyingQuery(db: Database, symbol: string) {
  return db
    .select({ symbol: underlyings.symbol, name: underlyings.name, price: equityQuotes.price, asOf: equityQuotes.asOf })
    .from(underlyings)
    .leftJoin(equityQuotes, eq(equityQuotes.symbol, underlyings.symbol))
    .where(eq(underlyings.symbol, symbol));
}

/** Contracts by OCC symbol, in one statement however many. */
export function optionQuotesQuery(db: Database, symbols: string[]) {
  return db.select(optionQuoteColumns).from(optionQuotes).where(inArray(optionQuotes.optionSymbol, symbols));
}

/** Listed expirations of an underlying (distinct, chronological). */
export function expirationsQuery(db: Database, symbol: string) {
  return db
    .selectDistinct({ expiration: optionQuotes.expiration })
    .from(optionQuotes)
    .where(eq(optionQuotes.underlying, symbol))
    .orderBy(asc(optionQuotes.expiration));
}

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
