import type { QuoteAnalytics } from "../../src/analytics/quote-analytics";
import { optionQuotes } from "../../src/db/schema";
import type { InsertRow } from "../../ingest/db/bulk-insert";

/** What an `option_quotes` row needs: the generated market provides it (files and feeds go through the ingest pipeline). */
export interface OptionQuoteInput extends QuoteAnalytics {
  optionSymbol: string;
  underlying: string;
  root: string;
  expiration: string;
  strike: number;
  side: "call" | "put";
  settlement: "am" | "pm";
  bid: number | null;
  ask: number | null;
  last: number | null;
  volume: number | null;
  openInterest: number | null;
  lastTradeAt?: string | null;
  previousMark?: number | null;
}

/** One `option_quotes` row (standard 100-share contracts), quoted at `spot` as of `asOf`. */
export function optionQuoteRow(c: OptionQuoteInput, spot: number, asOf: string): InsertRow<typeof optionQuotes> {
  return {
    optionSymbol: c.optionSymbol,
    underlying: c.underlying,
    root: c.root,
    expiration: c.expiration,
    strike: c.strike,
    side: c.side,
    settlement: c.settlement,
    multiplier: 100,
    bid: c.bid,
    ask: c.ask,
    last: c.last,
    volume: c.volume,
    openInterest: c.openInterest,
    iv: c.iv,
    delta: c.delta,
    gamma: c.gamma,
    theta: c.theta,
    vega: c.vega,
    rho: c.rho,
    underlyingPrice: spot,
    asOf,
    lastTradeAt: c.lastTradeAt ?? null,
    previousMark: c.previousMark ?? null,
  };
}
