import { impliedSpot, type ParityExpiry } from "../../src/analytics/parity-spot";
import type { Settlement } from "../../src/domain/market-clock";
import { yearsToExpiry } from "../../src/domain/market-clock";
import type { OptionContract } from "../events";

/** One (root, expiration): its settlement and, per strike, the mids of the sides quoted two-sided. */
interface Expiry {
  expiration: string;
  settlement: Settlement;
  strikes: Map<number, { call: number | null; put: number | null }>;
}

/** A contract's NBBO as the book keeps it. */
export interface BookQuote extends Pick<OptionContract, "underlying" | "settlement"> {
  bid: number | null;
  ask: number | null;
}

/** Where a contract sits in its underlying's chain. */
export interface ChainPlace {
  root: string;
  expiration: string;
  strike: number;
  side: "call" | "put";
}

/** A two-sided quote's mid; null when a side is missing, the bid is 0 or the market is crossed. */
export function twoSidedMid(bid: number | null, ask: number | null): number | null {
  return bid !== null && ask !== null && bid > 0 && ask >= bid ? (bid + ask) / 2 : null;
}

/**
 * The newest NBBO mid of every contract, by underlying, so that each minute's spot can be implied
 * from the whole chain (put–call parity) although a minute's samples hold only the contracts
 * that changed. Loaded from `option_quotes` at start-up, then kept by the quotes the ingestor writes.
 */
export class OptionBook {
  private readonly byUnderlying = new Map<string, Map<string, Expiry>>();

  /** Records a contract's quote; a one-sided or crossed quote clears its mid. */
  apply(q: BookQuote, at: ChainPlace): void {
    let expiries = this.byUnderlying.get(q.underlying);
    if (!expiries) this.byUnderlying.set(q.underlying, (expiries = new Map()));
    const key = `${at.root}|${at.expiration}`;
    let expiry = expiries.get(key);
    if (!expiry) expiries.set(key, (expiry = { expiration: at.expiration, settlement: q.settlement, strikes: new Map() }));
    let strike = expiry.strikes.get(at.strike);
    if (!strike) expiry.strikes.set(at.strike, (strike = { call: null, put: null }));
    strike[at.side] = twoSidedMid(q.bid, q.ask);
  }

  /** The spot the underlying's chain implies at `at` (`impliedSpot`), or null when no expiration has a quoted pair. */
  spot(underlying: string, at: Date, r: number, q: number): number | null {
    const expiries = this.byUnderlying.get(underlying);
    if (!expiries) return null;
    const parity: ParityExpiry[] = [];
    for (const expiry of expiries.values()) {
      const T = yearsToExpiry(expiry.expiration, expiry.settlement, at);
      if (!(T > 0)) continue;
      const pairs = [];
      for (const [strike, mids] of expiry.strikes) {
        if (mids.call !== null && mids.put !== null) pairs.push({ strike, callMid: mids.call, putMid: mids.put });
      }
      parity.push({ T, pairs });
    }
    return impliedSpot(parity, r, q);
  }
}
