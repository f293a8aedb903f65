/** GEX heatmap: exposure per (expiration, strike) cell inside a strike band, capped (docs/gex.md). */
import { bookContractGex, servedExposure, type GammaBook } from "./gamma-book";

export interface HeatmapCell {
  /** YYYY-MM-DD. */
  expiration: string;
  strike: number;
  /** Dollars per 1% move, whole: callGex ≥ 0, putGex ≤ 0, netGex = callGex + putGex. */
  callGex: number;
  putGex: number;
  netGex: number;
}

export interface HeatmapOptions {
  /** Inclusive lower strike bound, USD. */
  strikeMin?: number;
  /** Inclusive upper strike bound, USD. */
  strikeMax?: number;
  /** Band half-width as a fraction of spot when neither bound is given (default 0.35). */
  band?: number;
  /** Cell cap (default 5000). */
  maxCells?: number;
}

export interface Heatmap {
  /** Expirations of the returned cells, chronological. */
  expirations: string[];
  /** Expiration ascending, then strike ascending. */
  cells: HeatmapCell[];
  /** True when the cap dropped cells inside the band. */
  truncated: boolean;
  /** The strike band applied (inclusive; ±Infinity for an open side). */
  strikeMin: number;
  strikeMax: number;
}

export const HEATMAP_MAX_CELLS = 5000;
export const HEATMAP_BAND = 0.35;

/**
 * Strike band: [strikeMin, strikeMax] when both are given; only the given side when one is (the
 * other is open); spot·(1 ± 0.35) when neither is. Bounds are inclusive. The caller rejects
 * strikeMin > strikeMax (400 invalid_range); here such a band is simply empty.
 */
export function heatmapBand(spot: number, strikeMin?: number, strikeMax?: number, band = HEATMAP_BAND): { lo: number; hi: number } {
  if (strikeMin === undefined && strikeMax === undefined) return { lo: spot * (1 - band), hi: spot * (1 + band) };
  return { lo: strikeMin ?? -Infinity, hi: strikeMax ?? Infinity };
}

/**
 * Aggregates the book's exposure at spot into (expiration, strike) cells; only cells holding a
 * contract with exposure exist. Over the cap, whole strikes are kept in order of distance from
 * spot (equal distance: the lower strike first) while they fit, so no strike row is left with
 * holes that would read as zero exposure; a single strike with more expirations than the cap
 * keeps its earliest ones.
 */
export function gexHeatmap(book: GammaBook, spot: number, options: HeatmapOptions = {}): Heatmap {
  const maxCells = options.maxCells ?? HEATMAP_MAX_CELLS;
  const { lo, hi } = heatmapBand(spot, options.strikeMin, options.strikeMax, options.band);
  // Dense (expiration × strike) accumulators over the band's distinct strikes.
  const strikes: number[] = [];
  const strikeIndex = new Map<number, number>();
  for (let k = 0; k < book.n; k++) {
    const strike = book.strike[k]!;
    if (strike >= lo && strike <= hi && !strikeIndex.has(strike)) {
      strikeIndex.set(strike, -1);
      strikes.push(strike);
    }
  }
  strikes.sort((p, q) => p - q);
  strikes.forEach((strike, i) => strikeIndex.set(strike, i));
  const width = strikes.length;
  const size = book.expirations.length * width;
  const call = new Float64Array(size);
  const put = new Float64Array(size);
  const present = new Uint8Array(size);
  for (let k = 0; k < book.n; k++) {
    const s = strikeIndex.get(book.strike[k]!);
    if (s === undefined) continue;
    const cell = book.expiry[k]! * width + s;
    present[cell] = 1;
    const gex = bookContractGex(book, k, spot);
    if (book.sign[k]! > 0) call[cell]! += gex;
    else put[cell]! += gex;
  }
  const cellsAt = new Int32Array(width);
  for (let cell = 0; cell < size; cell++) if (present[cell]) cellsAt[cell % width]!++;

  // Whole strikes, nearest spot first (equal distance: lower strike), until the next would not fit.
  const byDistance = strikes.map((_, i) => i).sort((p, q) => Math.abs(strikes[p]! - spot) - Math.abs(strikes[q]! - spot) || p - q);
  const keep = new Uint8Array(width);
  let total = 0;
  let kept = 0;
  let full = false;
  for (const s of byDistance) {
    total += cellsAt[s]!;
    if (full) continue;
    if (kept + cellsAt[s]! > maxCells) {
      full = true;
      if (kept > 0) continue;
    }
    keep[s] = 1;
    kept += Math.min(cellsAt[s]!, maxCells - kept);
  }

  const cells: HeatmapCell[] = [];
  const expirations: string[] = [];
  for (let e = 0; e < book.expirations.length; e++) {
    let any = false;
    for (let s = 0; s < width && cells.length < kept; s++) {
      const cell = e * width + s;
      if (!present[cell] || !keep[s]) continue;
      cells.push({ expiration: book.expirations[e]!, strike: strikes[s]!, ...servedExposure(call[cell]!, put[cell]!) });
      any = true;
    }
    if (any) expirations.push(book.expirations[e]!);
  }
  return { expirations, cells, truncated: kept < total, strikeMin: lo, strikeMax: hi };
}
