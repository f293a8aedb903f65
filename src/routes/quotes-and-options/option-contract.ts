import { z } from "zod";
import { daysBetween } from "../../domain/calendar";
import { isoTimestamp } from "../../db/timestamps";
import type { OptionQuoteRow } from "../../market/option-quotes";
import { round } from "../../domain/round";
import { hasExpired } from "../../domain/market-clock";

/** The "Option contract quote" of the spec; used by the single, batch and chain endpoints. */
export const OptionQuoteSchema = z.object({
  optionSymbol: z.string().describe("OCC symbol (compact form)."),
  underlying: z.string(),
  expiration: z.iso.date(),
  strike: z.number().describe("USD."),
  side: z.enum(["call", "put"]),
  bid: z.number().nullable(),
  ask: z.number().nullable(),
  mid: z.number().nullable(),
  last: z.number().nullable(),
  volume: z.int().nullable().describe("Contracts traded in the current session."),
  openInterest: z.int().nullable().describe("From the previous session settlement."),
  iv: z.number().nullable().describe("Implied volatility in percent (22.37 = 22.37%)."),
  delta: z.number().nullable(),
  gamma: z.number().nullable().describe("Delta change per $1 underlying move."),
  theta: z.number().nullable().describe("Dollars per calendar day, per share."),
  vega: z.number().nullable().describe("Dollars per 1% IV change, per share."),
  rho: z.number().nullable().describe("Dollars per 1% rate change, per share."),
  underlyingPrice: z.number().nullable().describe("Spot at quote time."),
  spreadPercent: z.number().nullable().describe("(ask − bid) / mid × 100; null when ask < bid or there is no two-sided market."),
  dte: z.int().describe("Days to expiration versus the current ET calendar date."),
  asOf: z.iso.datetime().nullable(),
});

export type OptionQuote = z.infer<typeof OptionQuoteSchema>;

/**
 * Field rules: mid only for a two-sided market; spreadPercent = (ask − bid) / mid × 100, signed
 * as is, null for an inverted market (ask < bid) or a zero mid; IV stored as a decimal is served
 * in percent; dte against `today` (the ET date of `at`); delta, gamma, theta, vega and rho null
 * once the contract has expired at `at`, the request's instant (its settlement: the open for
 * AM-settled contracts, the close for PM-settled ones), whatever was stored before it.
 */
export function toOptionQuote(row: OptionQuoteRow, today: string, at: Date): OptionQuote {
  const expired = hasExpired(row.expiration, row.settlement, at);
  const twoSided = row.bid !== null && row.ask !== null;
  const mid = twoSided ? ((row.bid as number) + (row.ask as number)) / 2 : null;
  const spreadPercent =
    twoSided && mid !== null && mid > 0 && (row.ask as number) >= (row.bid as number)
      ? (((row.ask as number) - (row.bid as number)) / mid) * 100
      : null;
  return {
    optionSymbol: row.optionSymbol,
    underlying: row.underlying,
    expiration: row.expiration,
    strike: row.strike,
    side: row.side,
    bid: row.bid,
    ask: row.ask,
    mid: round(mid, 4),
    last: row.last,
    volume: row.volume,
    openInterest: row.openInterest,
    iv: round(row.iv === null ? null : row.iv * 100, 4),
    delta: expired ? null : round(row.delta, 6),
    gamma: expired ? null : round(row.gamma, 6),
    theta: expired ? null : round(row.theta, 6),
    vega: expired ? null : round(row.vega, 6),
    rho: expired ? null : round(row.rho, 6),
    underlyingPrice: row.underlyingPrice,
    spreadPercent: round(spreadPercent, 4),
    dte: daysBetween(today, row.expiration),
    asOf: isoTimestamp(row.asOf),
  };
}
