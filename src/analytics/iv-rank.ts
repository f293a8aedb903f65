/** IV rank, IV percentile, 52-week range and one-week change of a daily IV series (docs/volatility.md). */
import { addDays } from "../domain/calendar";

/** One session's IV (decimal) of the ranked series: the 30-day constant-maturity ATM IV. */
export interface IvObservation {
  /** YYYY-MM-DD, the session. */
  date: string;
  iv: number;
}

export interface IvSeries {
  /** The session being ranked (ET date), YYYY-MM-DD. */
  asOf: string;
  /** Today's IV, decimal; null when it could not be computed. */
  current: number | null;
  /** Daily observations in any order, one per session. Rows dated asOf or later are ignored. */
  history: readonly IvObservation[];
}

export interface IvRank {
  /** 100·(current − low)/(high − low) over the window, 0–100; null without a current IV or when high = low. */
  ivr: number | null;
  /** Share of the window's prior observations strictly below current, 0–100; null below 20 of them. */
  ivp: number | null;
  /** Highest and lowest IV of the window including today, decimal; null when the window is empty. */
  ivHigh52w: number | null;
  ivLow52w: number | null;
  /** Prior observations in the window (today excluded). */
  observations: number;
}

/** The window holds sessions dated after asOf − 365 days, up to and including asOf. */
export const IV_WINDOW_DAYS = 365;
/** IV percentile needs at least this many prior observations. */
export const IVP_MIN_OBSERVATIONS = 20;

/** 100·(current − low)/(high − low): where current sits in the range, 0–100; null when the range is empty or flat. */
export function rankInRange(current: number | null, high: number | null, low: number | null): number | null {
  if (current === null || high === null || low === null || !(high > low)) return null;
  return (100 * (current - low)) / (high - low);
}

const usable = (iv: number | null | undefined): iv is number => typeof iv === "number" && iv > 0 && iv < Infinity;

/**
 * IV rank and percentile over the 52-week window (asOf − 365 days, asOf]: the prior observations
 * in it plus today's value. Today's value belongs to the high/low (a new high ranks 100, a new
 * low 0); the percentile compares today with the prior observations only, strictly below, so a
 * new high is the 100th percentile and a new low the 0th. Non-positive or non-finite IVs are
 * not observations.
 */
export function ivRank({ asOf, current, history }: IvSeries): IvRank {
  const start = addDays(asOf, -IV_WINDOW_DAYS);
  const now = usable(current) ? current : null;
  let high = now ?? -Infinity;
  let low = now ?? Infinity;
  let observations = 0;
  let below = 0;
  for (const o of history) {
    if (!(o.date > start && o.date < asOf) || !usable(o.iv)) continue;
    observations++;
    if (o.iv > high) high = o.iv;
    if (o.iv < low) low = o.iv;
    if (now !== null && o.iv < now) below++;
  }
  const empty = high === -Infinity;
  return {
    ivr: rankInRange(now, high, low),
    ivp: now === null || observations < IVP_MIN_OBSERVATIONS ? null : (100 * below) / observations,
    ivHigh52w: empty ? null : high,
    ivLow52w: empty ? null : low,
    observations,
  };
}

/**
 * One-week change, decimal IV (× 100 for IV points): today's IV minus the latest observation
 * dated at least 7 calendar days before asOf and less than 14 (a holiday a week ago falls back
 * to the session before it). Null without a current IV or such an observation.
 */
export function ivChange1w({ asOf, current, history }: IvSeries): number | null {
  if (!usable(current)) return null;
  const latest = addDays(asOf, -7);
  const earliest = addDays(asOf, -14);
  let reference: IvObservation | null = null;
  for (const o of history) {
    if (o.date <= latest && o.date > earliest && usable(o.iv) && (reference === null || o.date > reference.date)) reference = o;
  }
  return reference === null ? null : current - reference.iv;
}
