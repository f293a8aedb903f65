/** At-the-money IV per expiry and the 30-day constant-maturity ATM IV, the series IV rank ranks (docs/volatility.md). */
import type { OptionSide } from "./black-scholes";

/** One contract's IV (decimal) at a strike. */
export interface StrikeIv {
  strike: number;
  side: OptionSide;
  iv: number | null;
}

/** One expiry of the term structure: years to its expiry instant and its ATM IV (decimal). */
export interface TermPoint {
  T: number;
  iv: number;
}

/** A chain contract: its IV and years to its expiry instant. */
export interface ChainIv extends StrikeIv {
  T: number;
}

/** 30 calendar days in years (calendar time / 365, like T). */
export const IV30_YEARS = 30 / 365;

/** Calendar days of expiries a chain's 30-day IV is taken from: enough to bracket 30 days. */
export const IV30_CHAIN_DAYS = 100;

const usable = (x: number | null | undefined): x is number => typeof x === "number" && x > 0 && x < Infinity;

/**
 * ATM IV of one expiry at its forward F: each strike's IV is the mean of its call and put IVs
 * (either alone when only one is usable), and the two strikes bracketing F are interpolated
 * linearly in ln K. A strike equal to F gives its own IV. Null when F lies outside the strikes
 * with a usable IV.
 */
export function atmIv(quotes: readonly StrikeIv[], forward: number): number | null {
  const byStrike = new Map<number, { sum: number; count: number }>();
  for (const q of quotes) {
    if (!usable(q.iv) || !usable(q.strike)) continue;
    const s = byStrike.get(q.strike);
    if (s === undefined) byStrike.set(q.strike, { sum: q.iv, count: 1 });
    else {
      s.sum += q.iv;
      s.count++;
    }
  }
  let below: number | null = null;
  let above: number | null = null;
  for (const k of byStrike.keys()) {
    if (k <= forward && (below === null || k > below)) below = k;
    if (k >= forward && (above === null || k < above)) above = k;
  }
  if (below === null || above === null) return null;
  const ivAt = (k: number) => byStrike.get(k)!.sum / byStrike.get(k)!.count;
  if (below === above) return ivAt(below);
  const w = Math.log(forward / below) / Math.log(above / below);
  return ivAt(below) + w * (ivAt(above) - ivAt(below));
}

/**
 * Constant-maturity IV at `targetYears` from one ATM IV per expiry: total variance σ²T is
 * interpolated linearly in T between the nearest expiries on either side (the VIX white paper's
 * rule), σ = √(w/T). Outside the listed expiries the nearest one's IV is used (flat). Null with
 * no usable point.
 */
export function constantMaturityIv(points: readonly TermPoint[], targetYears = IV30_YEARS): number | null {
  let lower: TermPoint | null = null;
  let upper: TermPoint | null = null;
  for (const p of points) {
    if (!usable(p.T) || !usable(p.iv)) continue;
    if (p.T === targetYears) return p.iv;
    if (p.T < targetYears && (lower === null || p.T > lower.T)) lower = p;
    if (p.T > targetYears && (upper === null || p.T < upper.T)) upper = p;
  }
  if (lower === null) return upper === null ? null : upper.iv;
  if (upper === null) return lower.iv;
  const w1 = lower.iv * lower.iv * lower.T;
  const w2 = upper.iv * upper.iv * upper.T;
  const w = w1 + ((w2 - w1) * (targetYears - lower.T)) / (upper.T - lower.T);
  return Math.sqrt(w / targetYears);
}

/**
 * The 30-day constant-maturity ATM IV of a chain: contracts are grouped by expiry instant (equal
 * T), each group's ATM IV is taken at its forward F = S·e^{(r−q)T}, and the term structure is
 * interpolated to `targetYears`. Expiries without an ATM IV are skipped.
 */
export function atmIv30(
  chain: readonly ChainIv[],
  market: { spot: number; r: number; q: number },
  targetYears = IV30_YEARS,
): number | null {
  const byExpiry = new Map<number, ChainIv[]>();
  for (const c of chain) {
    if (!usable(c.T)) continue;
    const group = byExpiry.get(c.T);
    if (group === undefined) byExpiry.set(c.T, [c]);
    else group.push(c);
  }
  const points: TermPoint[] = [];
  for (const [T, group] of byExpiry) {
    const iv = atmIv(group, market.spot * Math.exp((market.r - market.q) * T));
    if (iv !== null) points.push({ T, iv });
  }
  return constantMaturityIv(points, targetYears);
}
