/** Options-flow classification (ANALYTICS.md §4): fill side, sentiment, execution type, opening, moneyness, premium, IV and delta. */

import { bsm, type ContractTerms } from "./black-scholes";
import { impliedVolatility } from "./implied-volatility";

export type FillSide = "ask" | "bid" | "mid" | "unknown";
export type Sentiment = "bullish" | "bearish" | "neutral";
export type ExecutionType = "sweep" | "block" | "split";
/**
 * What a print counts for. Regular prints carry sentiment and net premium; complex (multi-leg,
 * priced against the package, not the leg's NBBO) and canceled prints are kept but flagged, and
 * count for neither (ANALYTICS.md §4.4, §4.5, §10).
 */
export type PrintClass = "regular" | "complex" | "canceled";

/** Standard equity-option deliverable: 100 shares per contract. */
export const CONTRACT_MULTIPLIER = 100;

/** Prints of one contract, side and class at most this far apart are fills of one order (§4.4's Δt). */
export const CLUSTER_GAP_MS = 500;
/** A lone print of at least this many contracts is a block. */
export const BLOCK_MIN_CONTRACTS = 500;
/** …or of at least this premium, in dollars (expensive contracts reach block size in fewer lots). */
export const BLOCK_MIN_PREMIUM = 1_000_000;

const EPSILON = 1e-9;

/**
 * Fill side by the quote rule: above the midpoint is ask, below is bid, at the midpoint is mid;
 * unknown when there is no usable market (ask ≤ 0 or crossed). A zero bid is a valid market.
 */
export function classifyFill(price: number, bid: number | null, ask: number | null): FillSide {
  if (bid === null || ask === null || !(ask > 0) || ask < bid || bid < 0) return "unknown";
  const mid = (bid + ask) / 2;
  if (price > mid + EPSILON) return "ask";
  if (price < mid - EPSILON) return "bid";
  return "mid";
}

/**
 * Calls bought at the ask and puts sold at the bid are bullish; the mirror cases bearish; mid and
 * unknown fills, complex and canceled prints neutral.
 */
export function sentimentOf(optionType: "call" | "put", side: FillSide, printClass: PrintClass = "regular"): Sentiment {
  if (printClass !== "regular") return "neutral";
  if (side === "ask") return optionType === "call" ? "bullish" : "bearish";
  if (side === "bid") return optionType === "call" ? "bearish" : "bullish";
  return "neutral";
}

/** Premium in dollars: price × size × multiplier, to the cent. */
export function premiumOf(price: number, size: number, multiplier = CONTRACT_MULTIPLIER): number {
  return Math.round(price * size * multiplier * 100) / 100;
}

/**
 * Distance of the strike beyond spot in percent of spot, positive out of the money and negative in
 * the money: (K − S)/S for calls, (S − K)/S for puts, 4 decimals. 0 without a spot (the print's
 * `underlyingPrice` is then 0 too).
 */
export function otmPercent(optionType: "call" | "put", strike: number, underlyingPrice: number | null): number {
  if (underlyingPrice === null || !(underlyingPrice > 0)) return 0;
  const pct = ((optionType === "call" ? strike - underlyingPrice : underlyingPrice - strike) / underlyingPrice) * 100;
  return Math.round(pct * 1e4) / 1e4;
}

/**
 * Opening print (§4.3, the spec's rule): more contracts than the open interest, which is the OCC
 * overnight figure and fixed for the session. False when the open interest is unknown: only a
 * print known to exceed it is flagged (a known open interest of 0 makes every print opening).
 */
export function isOpening(size: number, openInterest: number | null): boolean {
  return openInterest !== null && size > openInterest;
}

/** Where a print's open interest comes from (the print's `openInterestSource`). */
export const OPEN_INTEREST_SOURCES = ["session", "earlier", "none"] as const;
export type OpenInterestSource = (typeof OPEN_INTEREST_SOURCES)[number];

export interface PrintOpenInterest {
  /** 0 with source `none`. */
  openInterest: number;
  opening: boolean;
  source: OpenInterestSource;
}

/**
 * Open interest of a print and its opening flag: the contract's known open interest of the print's
 * session (`session`), else of an earlier session (`earlier`, the latest known: a stale but
 * conservative stand-in), else 0 and never opening (`none`). A figure of a later session is not
 * used: it already counts the print itself when it opened a position.
 */
export function printOpenInterest(
  size: number,
  sessionDate: string,
  known: { openInterest: number; sessionDate: string } | null | undefined,
): PrintOpenInterest {
  if (!known || !(known.openInterest >= 0) || known.sessionDate > sessionDate) return { openInterest: 0, opening: false, source: "none" };
  return {
    openInterest: known.openInterest,
    opening: isOpening(size, known.openInterest),
    source: known.sessionDate === sessionDate ? "session" : "earlier",
  };
}

/** Where a print's IV and delta come from (the print's `ivSource`), best first. */
export const IV_SOURCES = ["trade", "mid", "snapshot", "none"] as const;
export type IvSource = (typeof IV_SOURCES)[number];

export interface PrintVolatilityInput {
  /** Trade price, per share. */
  price: number;
  /** The NBBO at the trade; null when there was none. */
  bid: number | null;
  ask: number | null;
  /** Spot at the trade; null or ≤ 0 when unknown. */
  spot: number | null;
  /** The contract and its market without spot: strike, years to settlement, rate, dividend yield, side. */
  terms: Omit<ContractTerms, "S">;
  /**
   * The option is priced off something other than the spot (Cboe volatility indexes are priced off
   * their futures): neither the trade price nor the mid is inverted against the spot.
   */
  forwardPriced?: boolean;
  /** IV and delta the vendor solved at the trade (Cboe's Calcs `trade_iv`/`trade_delta`), decimal. */
  vendor?: { iv: number; delta: number } | null;
  /** The contract's stored quote (`option_quotes.iv` and `delta`, decimal), whatever its date. */
  snapshot?: { iv: number | null; delta: number | null } | null;
}

export interface PrintVolatility {
  /** Annualised, decimal; 0 with source `none`. */
  iv: number;
  /** At the trade, from `iv`; 0 with source `none`. */
  delta: number;
  source: IvSource;
}

/**
 * IV and delta of a print, never missing. The first that exists wins:
 * 1. `trade`: the vendor's IV at the trade, else BSM IV solved from the trade price at the spot;
 * 2. `mid`: BSM IV solved from the NBBO mid at the trade (a trade price outside the no-arbitrage
 *    bounds, e.g. through intrinsic, is common for large prints; the mid usually is not);
 * 3. `snapshot`: the contract's stored IV; delta re-priced from it at the print's spot and time,
 *    or the stored delta when the spot cannot price the option (no spot, forward-priced);
 * 4. `none`: IV 0 (the spec's convention for a missing IV, as in the IV context) and delta 0.
 * Delta is always BSM delta at the chosen IV, except the vendor's and the stored one.
 */
export function printVolatility(input: PrintVolatilityInput): PrintVolatility {
  const { price, bid, ask, spot, terms, forwardPriced = false, vendor, snapshot } = input;
  if (vendor && vendor.iv > 0 && Number.isFinite(vendor.iv) && Number.isFinite(vendor.delta))
    return { iv: vendor.iv, delta: vendor.delta, source: "trade" };
  // The spot that prices the option, if any.
  const S = spot !== null && spot > 0 && Number.isFinite(spot) && !forwardPriced ? spot : null;
  const solved = (at: number, source: IvSource): PrintVolatility | null => {
    if (S === null || !(at > 0)) return null;
    const iv = impliedVolatility({ price: at, S, ...terms });
    return iv === null ? null : { iv, delta: bsm({ S, ...terms, sigma: iv }).delta, source };
  };
  const validMarket = bid !== null && ask !== null && bid >= 0 && ask > 0 && ask >= bid;
  const fromPrices = solved(price, "trade") ?? (validMarket ? solved((bid + ask) / 2, "mid") : null);
  if (fromPrices) return fromPrices;
  const stored = snapshot?.iv ?? null;
  if (stored !== null && stored > 0 && Number.isFinite(stored)) {
    const storedDelta = snapshot?.delta ?? null;
    const delta =
      S !== null ? bsm({ S, ...terms, sigma: stored }).delta : storedDelta !== null && Number.isFinite(storedDelta) ? storedDelta : 0;
    return { iv: stored, delta, source: "snapshot" };
  }
  return { iv: 0, delta: 0, source: "none" };
}

/** A print's contribution to net premium (§4.5): + at the ask, − at the bid, 0 otherwise or when not regular. */
export function signedPremium(side: FillSide, printClass: PrintClass, premium: number): number {
  if (printClass !== "regular") return 0;
  return side === "ask" ? premium : side === "bid" ? -premium : 0;
}

export interface ExecutionInput {
  /** Contract identity, e.g. the OCC symbol. */
  contract: string;
  /** Execution time, epoch milliseconds. */
  at: number;
  /** Venue; null when the feed does not say. */
  exchange: number | string | null;
  side: FillSide;
  size: number;
  premium: number;
  printClass: PrintClass;
  /** The feed flags an intermarket sweep order (OPRA ISO conditions). */
  iso?: boolean;
}

export interface ExecutionOptions {
  clusterGapMs?: number;
  blockMinContracts?: number;
  blockMinPremium?: number;
}

/**
 * Execution type of every print, in input order (§4.4). Prints of the same contract, print class
 * and fill side, each within `clusterGapMs` of the previous one, form a cluster (one order's fills):
 * - sweep: a cluster that printed on two or more venues, or any print the feed flags as ISO;
 * - split: a cluster on one venue (or unknown venues);
 * - block: a lone print of at least `blockMinContracts` contracts or `blockMinPremium` dollars;
 * - split again for any other lone print: the spec's enumeration has no `single`.
 */
export function executionTypes(prints: readonly ExecutionInput[], options: ExecutionOptions = {}): ExecutionType[] {
  const gap = options.clusterGapMs ?? CLUSTER_GAP_MS;
  const minContracts = options.blockMinContracts ?? BLOCK_MIN_CONTRACTS;
  const minPremium = options.blockMinPremium ?? BLOCK_MIN_PREMIUM;
  const keyOf = (p: ExecutionInput) => `${p.contract}\u0000${p.printClass}\u0000${p.side}`;
  const keys = prints.map(keyOf);
  const order = prints.map((_, i) => i);
  order.sort((a, b) => {
    const ka = keys[a] as string;
    const kb = keys[b] as string;
    return ka < kb ? -1 : ka > kb ? 1 : (prints[a] as ExecutionInput).at - (prints[b] as ExecutionInput).at || a - b;
  });

  const types = new Array<ExecutionType>(prints.length);
  let cluster: number[] = [];
  const close = () => {
    if (cluster.length === 0) return;
    const members = cluster.map((i) => prints[i] as ExecutionInput);
    const venues = new Set(members.map((p) => p.exchange).filter((v) => v !== null));
    let type: ExecutionType;
    if ((cluster.length > 1 && venues.size > 1) || members.some((p) => p.iso)) type = "sweep";
    else if (cluster.length > 1) type = "split";
    else {
      const lone = members[0] as ExecutionInput;
      type = lone.size >= minContracts || lone.premium >= minPremium ? "block" : "split";
    }
    for (const i of cluster) types[i] = type;
    cluster = [];
  };
  for (const i of order) {
    const last = cluster[cluster.length - 1];
    if (last !== undefined && (keys[last] !== keys[i] || (prints[i] as ExecutionInput).at - (prints[last] as ExecutionInput).at > gap)) {
      close();
    }
    cluster.push(i);
  }
  close();
  return types;
}
