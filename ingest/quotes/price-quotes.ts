import { setImmediate } from "node:timers/promises";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { quoteAnalytics } from "../../src/analytics/quote-analytics";
import { addDays, newYorkInstant, todayInNewYork } from "../../src/domain/calendar";
import { expiryInstant, yearsUntil, type Settlement } from "../../src/domain/market-clock";
import type { optionQuotes } from "../../src/db/schema";
import type { Row } from "../db/rows";
import type { QuoteEvent } from "../events";
import type { OptionBook } from "./option-book";

/*
 * Pricing a minute's quotes: each sample instant's quotes into the book, each underlying's spot
 * implied from its chain, every sample's IV and Greeks solved at that spot and instant. No database:
 * the rows priced here are staged and applied by `write-quotes.ts`.
 */

/** What pricing a minute's quotes needs beyond the quotes: kept by the quote writer between minutes. */
export interface QuoteMarket {
  book: OptionBook;
  /** The market's risk-free rate (`market_state`), decimal. */
  rate: number;
  /** Continuous dividend yield by underlying (`underlyings`), decimal; 0 when absent. */
  dividendYields: Map<string, number>;
  /** The newest spot of each underlying: implied by its chain, else the stored equity quote. */
  spots: Map<string, number>;
}

/** The mid IV is solved from: both sides present and not crossed, a zero bid allowed (a far out-of-the-money offer). */
function ivMid(bid: number | null, ask: number | null): number | null {
  return bid !== null && ask !== null && ask > 0 && ask >= bid ? (bid + ask) / 2 : null;
}

/** What a sample sets of a stored quote, in the stage's column order; the contract's terms never change. */
export const SAMPLE_KEYS = [
  "optionSymbol",
  "bid",
  "ask",
  "last",
  "iv",
  "delta",
  "gamma",
  "theta",
  "vega",
  "rho",
  "underlyingPrice",
  "asOf",
] as const;

/** Values of stored quote columns, as the schema types them; the time in epoch ms. */
type StageValues<Keys extends readonly string[]> = {
  -readonly [I in keyof Keys]: Keys[I] extends "asOf"
    ? number
    : Keys[I] extends keyof Row<typeof optionQuotes>
      ? Row<typeof optionQuotes>[Keys[I]]
      : never;
};

/** A sample's stage row: its values of SAMPLE_KEYS, then its New York day's midnight and the next (epoch ms). */
export type StageRow = [...StageValues<typeof SAMPLE_KEYS>, number, number];

/** A sample priced: its event, its IV (decimal) and its stage row. */
export interface PricedSample {
  event: QuoteEvent;
  iv: number | null;
  values: StageRow;
}

/** A group of whole underlyings priced: its samples and each underlying's 30-day IV after them (decimal). */
export interface PricedGroup {
  samples: PricedSample[];
  ivs: Map<string, number>;
}

/** Instants a group's samples share, each computed once (time-zone arithmetic per sample cost seconds a minute). */
class SharedInstants {
  private readonly expiries = new Map<string, number>();
  private readonly days = new Map<number, [number, number]>();

  /** A contract's expiry instant (epoch ms): a group's contracts share a few dozen expirations. */
  expiry(expiration: string, settlement: Settlement): number {
    const key = `${expiration}${settlement}`;
    let at = this.expiries.get(key);
    if (at === undefined) this.expiries.set(key, (at = expiryInstant(expiration, settlement).getTime()));
    return at;
  }

  /** The New York day holding `at`: its midnight and the next (epoch ms), for the sample's session volume rule. */
  day(at: Date): [number, number] {
    let day = this.days.get(at.getTime());
    if (day === undefined) {
      const date = todayInNewYork(at);
      this.days.set(at.getTime(), (day = [newYorkInstant(date, 0).getTime(), newYorkInstant(addDays(date, 1), 0).getTime()]));
    }
    return day;
  }
}

/** A sample's NBBO with the IV solved from its mid and the Greeks at the underlying's spot and the sample's time. */
function priceSample(event: QuoteEvent, spot: number | null, r: number, q: number, instants: SharedInstants): PricedSample {
  const { contract } = event;
  const T = yearsUntil(instants.expiry(contract.expiration, event.settlement), event.asOf);
  const mid = ivMid(event.bid, event.ask);
  const terms = { S: spot ?? 0, K: contract.strike, T, r, q, side: contract.side };
  const iv = event.stated?.iv ?? (spot !== null && mid !== null && T > 0 ? impliedVolatility({ price: mid, ...terms }) : null);
  const g = quoteAnalytics(iv, terms);
  const values: StageRow = [
    event.optionSymbol,
    event.bid,
    event.ask,
    event.last,
    g.iv,
    g.delta,
    g.gamma,
    g.theta,
    g.vega,
    g.rho,
    spot,
    event.asOf.getTime(),
    ...instants.day(event.asOf),
  ];
  return { event, iv: g.iv, values };
}

/** Samples priced between turns of the event loop: a minute's pricing never holds up the other lanes for long. */
const PRICE_SLICE = 2_000;

/**
 * A group's samples priced (a contract sampled in several minutes of the batch keeps its newest),
 * the spots implied at each instant recorded in `spots`, and each underlying's 30-day IV after
 * its newest instant, from its whole chain in the book.
 */
export async function priceSamples(events: QuoteEvent[], market: QuoteMarket, spots: Map<string, ImpliedSpot>): Promise<PricedGroup> {
  const priced = new Map<string, PricedSample>();
  const instants = new SharedInstants();
  const newest = new Map<string, number>();
  let sliced = 0;
  for (const [at, instant] of byInstant(events)) {
    const stated = new Map<string, number>();
    for (const e of instant) {
      market.book.apply(e, e.contract);
      if (e.stated) stated.set(e.underlying, e.stated.spot);
    }
    for (const underlying of new Set(instant.map((e) => e.underlying))) {
      const q = market.dividendYields.get(underlying) ?? 0;
      const spot = stated.get(underlying) ?? market.book.spot(underlying, new Date(at), market.rate, q);
      if (spot !== null) {
        market.spots.set(underlying, spot);
        const held = spots.get(underlying);
        spots.set(underlying, {
          price: spot,
          asOf: new Date(at).toISOString(),
          open: held?.open ?? spot,
          high: Math.max(spot, held?.high ?? spot),
          low: Math.min(spot, held?.low ?? spot),
        });
      }
    }
    for (const e of instant) {
      const q = market.dividendYields.get(e.underlying) ?? 0;
      const sample = priceSample(e, market.spots.get(e.underlying) ?? null, market.rate, q, instants);
      priced.set(e.optionSymbol, sample);
      market.book.setIv(e, e.contract, sample.iv);
      newest.set(e.underlying, at);
      if (++sliced % PRICE_SLICE === 0) await setImmediate();
    }
  }
  const ivs = new Map<string, number>();
  for (const [underlying, at] of newest) {
    const spot = market.spots.get(underlying);
    const q = market.dividendYields.get(underlying) ?? 0;
    const iv = spot === undefined ? null : market.book.iv30(underlying, new Date(at), { spot, r: market.rate, q });
    if (iv !== null) ivs.set(underlying, iv);
  }
  return { samples: [...priced.values()], ivs };
}

/** Events grouped by sample instant (epoch ms), in time order. */
function byInstant(events: readonly QuoteEvent[]): [number, QuoteEvent[]][] {
  const groups = new Map<number, QuoteEvent[]>();
  for (const e of events) {
    const at = e.asOf.getTime();
    const group = groups.get(at);
    if (group) group.push(e);
    else groups.set(at, [e]);
  }
  return [...groups].sort((a, b) => a[0] - b[0]);
}

/** An underlying's newest spot implied in a batch of samples, and the batch's first, highest and lowest. */
export interface ImpliedSpot {
  price: number;
  asOf: string;
  open: number;
  high: number;
  low: number;
}
