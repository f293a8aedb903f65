/** Options-flow classification (ANALYTICS.md §4): fill side, sentiment, execution type, opening, moneyness, premium. */

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
 * the money: (K − S)/S for calls, (S − K)/S for puts. Null without a spot.
 */
export function otmPercent(optionType: "call" | "put", strike: number, underlyingPrice: number | null): number | null {
  if (underlyingPrice === null || !(underlyingPrice > 0)) return null;
  const pct = ((optionType === "call" ? strike - underlyingPrice : underlyingPrice - strike) / underlyingPrice) * 100;
  return Math.round(pct * 1e4) / 1e4;
}

/**
 * Opening print (§4.3, the spec's rule): more contracts than the open interest, which is the OCC
 * overnight figure and fixed for the session. Null when the open interest is unknown.
 */
export function isOpening(size: number, openInterest: number | null): boolean | null {
  return openInterest === null ? null : size > openInterest;
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
