/** Dealer gamma exposure profile: per-strike exposure, totals, regime, walls and gamma flip (docs/gex.md). */
import { round } from "../domain/round";
import { bookContractGex, isSummationNoise, servedExposure, type GammaBook } from "./gamma-book";
import { gammaFlip, type GammaFlipOptions } from "./gamma-flip";

export type GexRegime = "positive" | "negative" | "neutral";

/** Exposures in dollars per 1% move of the underlying, whole: callGex ≥ 0, putGex ≤ 0, netGex = callGex + putGex. */
export interface GexStrike {
  strike: number;
  callGex: number;
  putGex: number;
  netGex: number;
}

export interface GexProfile {
  /** Every strike with exposure, ascending; each sums all selected expirations. */
  strikes: GexStrike[];
  totalCallGex: number;
  totalPutGex: number;
  netGex: number;
  regime: GexRegime;
  /** Rounded to the cent; null when net GEX keeps one sign over the search range. */
  gammaFlip: number | null;
  flipRegime: GexRegime | null;
  callWallStrike: number | null;
  putWallStrike: number | null;
}

export const GEX_DISCLAIMER =
  "Educational use only, not investment advice. Gamma exposure is an estimate: it assumes dealers are long the calls and short " +
  "the puts that customers hold, uses the previous session's open interest, and re-prices gamma with Black-Scholes-Merton from " +
  "each contract's implied volatility. Actual dealer positioning is not observable.";

/** Spec: positive when net dealer gamma > 0, negative when < 0, neutral when it is zero (to the sum's rounding). */
export function regimeOf(netGex: number, grossGex: number): GexRegime {
  if (isSummationNoise(netGex, grossGex)) return "neutral";
  return netGex > 0 ? "positive" : "negative";
}

/** Spec: positive when stockPrice > gammaFlip, negative when <, neutral when equal; null without a flip. */
export function flipRegimeOf(stockPrice: number, flip: number | null): GexRegime | null {
  if (flip === null) return null;
  return stockPrice > flip ? "positive" : stockPrice < flip ? "negative" : "neutral";
}

/** Per-strike exposure at spot, summed over expirations, served in whole dollars; strikes ascending. */
export function gexByStrike(book: GammaBook, spot: number): GexStrike[] {
  return unroundedByStrike(book, spot).map(servedStrike);
}

/** A strike's exact sums, before they are served. */
interface StrikeSums {
  strike: number;
  call: number;
  put: number;
}

function unroundedByStrike(book: GammaBook, spot: number): StrikeSums[] {
  const byStrike = new Map<number, StrikeSums>();
  for (let k = 0; k < book.n; k++) {
    const strike = book.strike[k]!;
    let row = byStrike.get(strike);
    if (row === undefined) {
      row = { strike, call: 0, put: 0 };
      byStrike.set(strike, row);
    }
    const gex = bookContractGex(book, k, spot);
    if (book.sign[k]! > 0) row.call += gex;
    else row.put += gex;
  }
  return [...byStrike.values()].sort((p, q) => p.strike - q.strike);
}

const servedStrike = (row: StrikeSums): GexStrike => ({ strike: row.strike, ...servedExposure(row.call, row.put) });

/**
 * The strike maximising score among those with score > 0; ties go to the strike nearest spot,
 * then the lower one. Null when no strike scores above zero.
 */
function argmaxStrike(rows: readonly GexStrike[], score: (r: GexStrike) => number, spot: number): number | null {
  let best: GexStrike | null = null;
  let bestScore = 0;
  for (const row of rows) {
    const s = score(row);
    if (!(s > 0)) continue;
    if (
      best === null ||
      s > bestScore ||
      (s === bestScore && Math.abs(row.strike - spot) < Math.abs(best.strike - spot)) // rows ascend, so an equal distance keeps the lower strike
    ) {
      best = row;
      bestScore = s;
    }
  }
  return best === null ? null : best.strike;
}

/**
 * Call wall: the strike with the largest call exposure (argmax callGex). Put wall: the strike with
 * the most negative put exposure (argmin putGex). A side with no exposure at all has no wall of
 * its own and falls back to the strike with the largest absolute net exposure; null only when
 * there is no exposure.
 */
export function gexWalls(rows: readonly GexStrike[], spot: number): { callWallStrike: number | null; putWallStrike: number | null } {
  const fallback = () => argmaxStrike(rows, (r) => Math.abs(r.netGex), spot);
  return {
    callWallStrike: argmaxStrike(rows, (r) => r.callGex, spot) ?? fallback(),
    putWallStrike: argmaxStrike(rows, (r) => -r.putGex, spot) ?? fallback(),
  };
}

/** The GEX profile of a book at the given spot (the response's stockPrice). */
export function gexProfile(book: GammaBook, spot: number, flipOptions?: GammaFlipOptions): GexProfile {
  const unrounded = unroundedByStrike(book, spot);
  let totalCallGex = 0;
  let totalPutGex = 0;
  for (const row of unrounded) {
    totalCallGex += row.call;
    totalPutGex += row.put;
  }
  const totals = servedExposure(totalCallGex, totalPutGex);
  // The regime is the sign of the served net, so a neutral book serves a net of exactly 0.
  const regime = regimeOf(totals.netGex, totalCallGex - totalPutGex);
  const root = gammaFlip(book, spot, flipOptions);
  const flip = round(root, 2);
  const strikes = unrounded.map(servedStrike);
  return {
    strikes,
    totalCallGex: totals.callGex,
    totalPutGex: totals.putGex,
    netGex: regime === "neutral" ? 0 : totals.netGex,
    regime,
    gammaFlip: flip,
    flipRegime: flipRegimeOf(spot, flip),
    ...gexWalls(strikes, spot),
  };
}
