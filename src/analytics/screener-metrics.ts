import type { BsmInputs, OptionSide } from "./black-scholes";
import { normCdf } from "./normal";

/**
 * The screener's per-contract metrics (ANALYTICS.md §5), per share, percentages in percent. The
 * rebuild computes the same in SQL over the whole market (`ingest/screener/rebuild.ts`); tests
 * hold the two to each other and these to the published wheel example.
 */

/** Below this many baseline sessions a 30-day standard deviation (and z-score) is not reported. */
export const MIN_HISTORY_SAMPLES = 10;
/** A strike within this percentage of spot is at the money. */
export const ATM_BAND_PCT = 1;

/** What a seller can expect to collect: the mid of a two-sided market (ask ≥ bid, ask > 0), else the last trade. */
export function premium(bid: number | null, ask: number | null, last: number | null): number | null {
  if (bid !== null && ask !== null && bid >= 0 && ask > 0 && ask >= bid) return (bid + ask) / 2;
  return last !== null && last > 0 ? last : null;
}

/**
 * Return on the collateral, percent: a cash-secured put is secured by its strike, a covered call
 * by the shares at spot (the spot, not a cost basis we cannot know).
 */
export function yieldPercent(side: OptionSide, premiumPerShare: number, strike: number, spot: number): number {
  return (premiumPerShare / (side === "put" ? strike : spot)) * 100;
}

/** Simple annualisation over calendar days (a same-day expiry counts as one day). */
export function annualizedReturn(yieldPct: number, dte: number): number {
  return (yieldPct * 365) / Math.max(dte, 1);
}

/** Risk-neutral probability of expiring out of the money, percent: N(d2) for a put, N(−d2) for a call. */
export function probabilityOtm({ S, K, T, r, q, sigma, side }: BsmInputs): number {
  const d2 = (Math.log(S / K) + (r - q - 0.5 * sigma * sigma) * T) / (sigma * Math.sqrt(T));
  return normCdf(side === "put" ? d2 : -d2) * 100;
}

/** Distance from spot to the strike in the seller's favour, percent of spot: positive out of the money. */
export function cushion(side: OptionSide, strike: number, spot: number): number {
  return ((side === "put" ? spot - strike : strike - spot) / spot) * 100;
}

/** In, at (within ATM_BAND_PCT of spot) or out of the money. */
export function moneyness(side: OptionSide, strike: number, spot: number): "itm" | "atm" | "otm" {
  const c = cushion(side, strike, spot);
  if (Math.abs(c) <= ATM_BAND_PCT) return "atm";
  return c > 0 ? "otm" : "itm";
}

/** Sample mean, sample standard deviation (n − 1) and count of a baseline. */
export function baseline(values: readonly number[]): { mean: number | null; std: number | null; samples: number } {
  const n = values.length;
  if (n === 0) return { mean: null, std: null, samples: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < MIN_HISTORY_SAMPLES) return { mean, std: null, samples: n };
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { mean, std: Math.sqrt(variance), samples: n };
}

/** (today − baseline mean) / baseline std; null when the baseline is short or flat. */
export function zScore(today: number, base: { mean: number | null; std: number | null }): number | null {
  return base.mean === null || base.std === null || base.std === 0 ? null : (today - base.mean) / base.std;
}

/**
 * An income seller's 0-100 score: 40% the probability of expiring out of the money, 30% the
 * annualized return (capped at 100%), 30% tradability — a spread under 20% of mid and open
 * interest towards 1,000 contracts (log scale).
 */
export function contractScore(m: {
  probability: number | null;
  annualizedReturn: number | null;
  spreadPct: number | null;
  openInterest: number | null;
}): number {
  const tight = m.spreadPct === null ? 0 : Math.max(0, 1 - m.spreadPct / 20);
  const deep = Math.min(1, Math.log10(1 + Math.max(m.openInterest ?? 0, 0)) / 3);
  const annual = Math.min(Math.max(m.annualizedReturn ?? 0, 0), 100);
  return 0.4 * (m.probability ?? 0) + 0.3 * annual + 30 * tight * deep;
}
