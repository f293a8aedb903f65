import {
  classifyFill,
  executionTypes,
  otmPercent,
  premiumOf,
  printOpenInterest,
  printVolatility,
  sentimentOf,
  type ExecutionType,
  type FillSide,
  type IvSource,
  type OpenInterestSource,
  type PrintClass,
  type Sentiment,
} from "../../src/analytics/flow";
import { yearsToExpiry } from "../../src/domain/market-clock";
import type { OptionTrade } from "../events";

/**
 * Underlyings whose options are priced off the index's futures, not its spot (Cboe's volatility
 * indexes): the feed's underlying quote is the spot, so IV and delta solved against it would be
 * wrong; their prints take the contract's stored IV instead (`printVolatility`).
 */
export const FORWARD_PRICED: ReadonlySet<string> = new Set(["VIX", "VXN", "RVX", "VVIX", "OVX", "GVZ"]);

/** A classified print, ready for `flow_prints`. Every served field has a value (docs/flow.md). */
export interface FlowPrint<T extends OptionTrade = OptionTrade> {
  trade: T;
  printClass: PrintClass;
  side: FillSide;
  sentiment: Sentiment;
  executionType: ExecutionType;
  premium: number;
  /** The contract's volume in the session up to and including this print (canceled prints excluded). */
  volume: number;
  /** The trade's own spot, else the nearest one of the underlying in the session (`sessionSpots`); 0 when none is known. */
  underlyingPrice: number;
  openInterest: number;
  openInterestSource: OpenInterestSource;
  opening: boolean;
  otmPct: number;
  /** Decimal. */
  iv: number;
  delta: number;
  ivSource: IvSource;
  isEtfOrIndex: boolean;
}

/** What the database holds for a contract: its stored quote (`option_quotes`), whatever its date. */
export interface StoredQuote {
  /** ET session of the quote's `as_of`. */
  sessionDate: string;
  openInterest: number | null;
  /** Decimal. */
  iv: number | null;
  delta: number | null;
}

export interface ClassifyContext {
  rate: number;
  dividendYield: number;
  /** Per underlying, the dividend yield the quotes are solved with; `dividendYield` for the others. */
  dividendYields?: ReadonlyMap<string, number>;
  /** Each contract's stored quote by OCC symbol, where there is one (open interest, snapshot IV and delta). */
  quotes?: ReadonlyMap<string, StoredQuote>;
  /** The stored equity quote of an underlying in a session, keyed `${underlying}|${sessionDate}`. */
  spots?: ReadonlyMap<string, number>;
  /** The spot of the newest stored print of an underlying in a session before these trades, keyed alike. */
  earlierSpots?: ReadonlyMap<string, number>;
  /** Underlyings known to be ETFs or indexes (`^` symbols are indexes anyway). */
  etfOrIndex?: ReadonlySet<string>;
  /** A contract's session volume already stored before these trades, keyed `${sessionDate}|${optionSymbol}`. */
  volumesBefore?: ReadonlyMap<string, number>;
}

/**
 * Spot of every trade, in the order given: its own underlying quote; else that of the nearest trade of
 * the same underlying and session at or before it that has one — in these trades, else among the
 * prints stored before them (`earlier`); else the stored equity quote of that underlying and session
 * (`stored`); else 0 (unknown). Maps are keyed `${underlying}|${sessionDate}`. Never a later trade's:
 * what a live feed knew at the print, so a file gives the same prints loaded whole or streamed.
 */
export function sessionSpots(
  trades: readonly OptionTrade[],
  stored: ReadonlyMap<string, number> = new Map(),
  earlier: ReadonlyMap<string, number> = new Map(),
): number[] {
  const spots = new Array<number>(trades.length);
  const groups = new Map<string, number[]>();
  trades.forEach((t, i) => {
    const key = `${t.underlying}|${t.sessionDate}`;
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const trade = (i: number) => trades[i] as OptionTrade;
  for (const [key, members] of groups) {
    // Time order; the sequence number breaks ties within a millisecond.
    const order = [...members].sort(
      (a, b) => trade(a).executedAt.getTime() - trade(b).executedAt.getTime() || trade(a).sequenceNumber - trade(b).sequenceNumber,
    );
    let last: number | null = earlier.get(key) ?? null;
    for (const i of order) spots[i] = (last = trade(i).underlyingPrice ?? last) ?? stored.get(key) ?? 0;
  }
  return spots;
}

/** IV and delta of a print by the shared fallback chain: the trade price, the NBBO mid, the contract's stored IV, else 0. */
function volatilityOf(t: OptionTrade, spot: number, ctx: ClassifyContext) {
  const quote = ctx.quotes?.get(t.optionSymbol);
  return printVolatility({
    price: t.price,
    bid: t.bid,
    ask: t.ask,
    spot,
    terms: {
      K: t.contract.strike,
      T: yearsToExpiry(t.contract.expiration, t.settlement, t.executedAt),
      r: ctx.rate,
      q: ctx.dividendYields?.get(t.underlying) ?? ctx.dividendYield,
      side: t.contract.side,
    },
    forwardPriced: FORWARD_PRICED.has(t.underlying),
    vendor: t.vendorGreeks ?? null,
    snapshot: quote ? { iv: quote.iv, delta: quote.delta } : null,
  });
}

/** Classifies every print against its own NBBO and its neighbours (clusters), in the order given. */
export function classifyTrades<T extends OptionTrade>(trades: readonly T[], ctx: ClassifyContext): FlowPrint<T>[] {
  const classes = trades.map((t) => t.printClass);
  const sides = trades.map((t) => classifyFill(t.price, t.bid, t.ask));
  const premiums = trades.map((t) => premiumOf(t.price, t.size));
  const types = executionTypes(
    trades.map((t, i) => ({
      contract: t.optionSymbol,
      at: t.executedAt.getTime(),
      exchange: t.exchangeId,
      side: sides[i] as FillSide,
      size: t.size,
      premium: premiums[i] as number,
      printClass: classes[i] as PrintClass,
    })),
  );

  // Running session volume per contract, in time order (sequence number breaks ties).
  const volumes = new Array<number>(trades.length);
  const order = trades.map((_, i) => i);
  const at = (i: number) => (trades[i] as T).executedAt.getTime();
  order.sort((a, b) => at(a) - at(b) || (trades[a] as T).sequenceNumber - (trades[b] as T).sequenceNumber);
  const running = new Map<string, number>();
  for (const i of order) {
    const t = trades[i] as T;
    const key = `${t.sessionDate}|${t.optionSymbol}`;
    const volume = (running.get(key) ?? ctx.volumesBefore?.get(key) ?? 0) + (classes[i] === "canceled" ? 0 : t.size);
    running.set(key, volume);
    volumes[i] = volume;
  }

  const spots = sessionSpots(trades, ctx.spots, ctx.earlierSpots);
  return trades.map((t, i) => {
    const printClass = classes[i] as PrintClass;
    const side = sides[i] as FillSide;
    const spot = spots[i] as number;
    const quote = ctx.quotes?.get(t.optionSymbol);
    const oi = printOpenInterest(
      t.size,
      t.sessionDate,
      quote && quote.openInterest !== null ? { openInterest: quote.openInterest, sessionDate: quote.sessionDate } : null,
    );
    const vol = volatilityOf(t, spot, ctx);
    return {
      trade: t,
      printClass,
      side,
      sentiment: sentimentOf(t.contract.side, side, printClass),
      executionType: types[i] as ExecutionType,
      premium: premiums[i] as number,
      volume: volumes[i] as number,
      underlyingPrice: spot,
      openInterest: oi.openInterest,
      openInterestSource: oi.source,
      opening: oi.opening,
      otmPct: otmPercent(t.contract.side, t.contract.strike, spot),
      iv: vol.iv,
      delta: vol.delta,
      ivSource: vol.source,
      isEtfOrIndex: t.isIndex || (ctx.etfOrIndex?.has(t.underlying) ?? false),
    };
  });
}
