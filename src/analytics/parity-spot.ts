/** A strike of one expiration where both the call and the put are quoted two-sided: their mids, per share. */
export interface ParityPair {
  strike: number;
  callMid: number;
  putMid: number;
}

/** The quoted pairs of one expiration and its time to expiry (years). */
export interface ParityExpiry {
  T: number;
  pairs: readonly ParityPair[];
}

/** Strikes nearest the forward whose parity forwards are combined: their median resists one stale quote. */
const PAIRS_USED = 3;
/**
 * Expirations nearer than this are avoided (pinning, a day's time value in a cent's tick); the
 * nearest one beyond it is used, else the farthest nearer one.
 */
export const MIN_PARITY_YEARS = 7 / 365;

/**
 * The forward put–call parity implies at one expiration, C − P = e^{−rT}(F − K), from the
 * strikes where |C − P| is smallest (those nearest the forward, where both sides are liquid):
 * the median of their F = K + e^{rT}(C − P). Null without a pair.
 */
export function parityForward(pairs: readonly ParityPair[], r: number, T: number): number | null {
  const nearest = [...pairs]
    .filter((p) => p.strike > 0 && Number.isFinite(p.callMid) && Number.isFinite(p.putMid))
    .sort((a, b) => Math.abs(a.callMid - a.putMid) - Math.abs(b.callMid - b.putMid))
    .slice(0, PAIRS_USED);
  if (nearest.length === 0) return null;
  const growth = Math.exp(r * T);
  const forwards = nearest.map((p) => p.strike + growth * (p.callMid - p.putMid)).sort((a, b) => a - b);
  const mid = forwards.length >> 1;
  return forwards.length % 2 === 1 ? forwards[mid]! : (forwards[mid - 1]! + forwards[mid]!) / 2;
}

/**
 * The spot an option chain implies: the parity forward of one expiration (the nearest at least
 * `MIN_PARITY_YEARS` out, else the farthest nearer one) carried back by S = F·e^{−(r−q)T}.
 * Null when no expiration has a quoted pair or the result is not a positive number.
 */
export function impliedSpot(expiries: readonly ParityExpiry[], r: number, q: number): number | null {
  const quoted = expiries.filter((e) => e.T > 0 && e.pairs.length > 0).sort((a, b) => a.T - b.T);
  const chosen = quoted.find((e) => e.T >= MIN_PARITY_YEARS) ?? quoted.at(-1);
  if (!chosen) return null;
  const forward = parityForward(chosen.pairs, r, chosen.T);
  if (forward === null) return null;
  const spot = forward * Math.exp(-(r - q) * chosen.T);
  return Number.isFinite(spot) && spot > 0 ? spot : null;
}
