/** Options-flow classification (quote rule against the NBBO at trade time). */

export type FillSide = "ask" | "bid" | "mid" | "unknown";
export type Sentiment = "bullish" | "bearish" | "neutral";

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

/** Calls bought at the ask and puts sold at the bid are bullish; the mirror cases bearish. */
export function sentimentOf(optionType: "call" | "put", side: FillSide): Sentiment {
  if (side === "ask") return optionType === "call" ? "bullish" : "bearish";
  if (side === "bid") return optionType === "call" ? "bearish" : "bullish";
  return "neutral";
}
