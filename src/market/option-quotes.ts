import { inArray } from "drizzle-orm";
import type { QuoteAnalytics } from "../analytics/quote-analytics";
import type { Database } from "../db/client";
import { optionQuotes } from "../db/schema";
import { readWithSnapshot, type Derived, type MarketRead } from "./snapshot";

/** An `option_quotes` row as the market queries select it. */
export interface OptionQuoteRow extends QuoteAnalytics {
  optionSymbol: string;
  underlying: string;
  expiration: string;
  strike: number;
  side: "call" | "put";
  /** When the contract expires: AM-settled at its expiration's open, PM-settled at its close. */
  settlement: "am" | "pm";
  bid: number | null;
  ask: number | null;
  last: number | null;
  volume: number | null;
  openInterest: number | null;
  underlyingPrice: number | null;
  asOf: string | null;
}

/** The columns every option-quote query selects, in `OptionQuoteRow` shape. */
export const optionQuoteColumns = {
  optionSymbol: optionQuotes.optionSymbol,
  underlying: optionQuotes.underlying,
  expiration: optionQuotes.expiration,
  strike: optionQuotes.strike,
  side: optionQuotes.side,
  settlement: optionQuotes.settlement,
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

/** Contracts by OCC symbol (compact form), in one statement however many. */
export function optionQuotesQuery(db: Database, symbols: string[]) {
  return db.select(optionQuoteColumns).from(optionQuotes).where(inArray(optionQuotes.optionSymbol, symbols));
}

/** Contracts by canonical OCC symbol as of the snapshot they were read under, in one round trip. */
export async function readOptionQuotes(read: MarketRead, symbols: string[]): Promise<Derived<OptionQuoteRow[]>> {
  const { db } = read;
  const {
    snapshot,
    rows: [rows],
  } = await readWithSnapshot(read, [optionQuotesQuery(db, symbols)]);
  return { snapshot, value: rows };
}
