import { atmIv30, IV30_CHAIN_DAYS, type ChainIv } from "../../src/analytics/atm-iv";
import { impliedSpot, type ParityExpiry } from "../../src/analytics/parity-spot";
import type { Settlement } from "../../src/domain/market-clock";
import { yearsToExpiry } from "../../src/domain/market-clock";
import type { OptionContract } from "../events";

/** A strike of an expiry: the mids of the sides quoted two-sided and each side's newest IV (decimal). */
interface Strike {
  call: number | null;
  put: number | null;
  iv: { call: number | null; put: number | null };
}

/** One (root, expiration): its settlement and its strikes. */
interface Expiry {
  expiration: string;
  settlement: Settlement;
  strikes: Map<number, Strike>;
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
 * The newest NBBO mid and IV of every contract, by underlying, so that each minute's spot can be
 * implied from the whole chain (put–call parity), and its 30-day IV taken, although a minute's
 * samples hold only the contracts that changed. Loaded from `option_quotes` at start-up, then kept
 * by the quotes the ingestor writes.
 */
export class OptionBook {
  private readonly byUnderlying = new Map<string, Map<string, Expiry>>();

  private strike(q: Pick<BookQuote, "underlying" | "settlement">, at: ChainPlace): Strike {
    let expiries = this.byUnderlying.get(q.underlying);
    if (!expiries) this.byUnderlying.set(q.underlying, (expiries = new Map()));
    const key = `${at.root}|${at.expiration}`;
    let expiry = expiries.get(key);
    if (!expiry) expiries.set(key, (expiry = { expiration: at.expiration, settlement: q.settlement, strikes: new Map() }));
    let strike = expiry.strikes.get(at.strike);
    if (!strike) expiry.strikes.set(at.strike, (strike = { call: null, put: null, iv: { call: null, put: null } }));
    return strike;
  }

  /** Records a contract's quote; a one-sided or crossed quote clears its mid. */
  apply(q: BookQuote, at: ChainPlace): void {
    this.strike(q, at)[at.side] = twoSidedMid(q.bid, q.ask);
  }

  /** Records the IV (decimal; null when none could be solved) a contract's quote was priced at. */
  setIv(q: Pick<BookQuote, "underlying" | "settlement">, at: ChainPlace, iv: number | null): void {
    this.strike(q, at).iv[at.side] = iv;
  }

  /**
   * The underlying's 30-day constant-maturity ATM IV at `at` (`atmIv30` over its expiries within
   * IV30_CHAIN_DAYS, as the API takes it from a stored chain), or null when none can be taken.
   */
  iv30(underlying: string, at: Date, market: { spot: number; r: number; q: number }): number | null {
    const expiries = this.byUnderlying.get(underlying);
    if (!expiries) return null;
    const chain: ChainIv[] = [];
    for (const expiry of expiries.values()) {
      const T = yearsToExpiry(expiry.expiration, expiry.settlement, at);
      if (!(T > 0) || T > IV30_CHAIN_DAYS / 365) continue;
      for (const [strike, { iv }] of expiry.strikes) {
        if (iv.call !== null) chain.push({ T, strike, side: "call", iv: iv.call });
        if (iv.put !== null) chain.push({ T, strike, side: "put", iv: iv.put });
      }
    }
    return atmIv30(chain, market);
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
