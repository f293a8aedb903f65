import { bsm } from "../../src/analytics/black-scholes";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { quoteAnalytics } from "../../src/analytics/quote-analytics";
import { addDays, daysBetween, isWeekday, newYorkInstant, thirdFriday } from "../../src/domain/calendar";
import { formatOcc } from "../../src/domain/occ";
import type { QuoteAnalytics } from "../../src/market/option-quote";
import type { Random } from "./random";
import { surfaceFor } from "./surface";
import type { UnderlyingProfile } from "./universe";

export const RISK_FREE_RATE = 0.043;
const YEAR_MS = 365 * 86_400_000;
const MIN_YEARS = 60_000 / YEAR_MS;
/** Length of a regular session, 09:30-16:00 ET. */
export const SESSION_MS = 6.5 * 3_600_000;

/** Everything the loaders need about one generated contract. */
export interface Contract extends QuoteAnalytics {
  optionSymbol: string;
  underlying: string;
  root: string;
  expiration: string;
  strike: number;
  side: "call" | "put";
  settlement: "am" | "pm";
  sigma: number;
  bid: number;
  ask: number;
  last: number | null;
  volume: number;
  openInterest: number;
  previousMark: number;
  lastTradeAt: string | null;
  /** First session on which the contract existed (weeklies are listed a few weeks out). */
  listedOn: string;
}

export interface MarketClock {
  sessionDate: string;
  /** Snapshot instant: 15:45 ET on the session date. */
  asOf: Date;
  sessionOpen: Date;
}

export function marketClock(sessionDate: string): MarketClock {
  return {
    sessionDate,
    asOf: newYorkInstant(sessionDate, 15, 45),
    sessionOpen: newYorkInstant(sessionDate, 9, 30),
  };
}

/** Years from `at` to the expiry instant (09:30 ET for AM settlement, 16:00 ET for PM), floored at a minute. */
export function yearsToExpiry(expiration: string, settlement: "am" | "pm", at: Date): number {
  const expiry = settlement === "am" ? newYorkInstant(expiration, 9, 30) : newYorkInstant(expiration, 16, 0);
  return Math.max((expiry.getTime() - at.getTime()) / YEAR_MS, MIN_YEARS);
}

/** Listed expirations for a root, as of a session. */
export function expirationsFor(u: UnderlyingProfile, monthlyOnly: boolean, sessionDate: string): string[] {
  const out = new Set<string>();
  const year = Number(sessionDate.slice(0, 4));
  const month = Number(sessionDate.slice(5, 7)) - 1;
  const months = u.activity >= 3 ? 12 : 6;
  for (let i = 0; i <= months; i++) out.add(thirdFriday(year + Math.floor((month + i) / 12), (month + i) % 12));
  if (u.activity >= 3) {
    out.add(thirdFriday(year + 1, 0));
    out.add(thirdFriday(year + 2, 0));
  }
  if (!monthlyOnly) {
    const weeks = u.activity >= 5 ? 8 : u.activity >= 1 ? 4 : 0;
    let d = sessionDate;
    for (let found = 0; found < weeks; d = addDays(d, 1)) {
      if (new Date(`${d}T00:00:00Z`).getUTCDay() === 5) {
        out.add(d);
        found++;
      }
    }
    if (u.activity >= 8) {
      // Daily expirations (0DTE included) on the most active names.
      for (let i = 0, d2 = sessionDate; i < 5; d2 = addDays(d2, 1)) {
        if (isWeekday(d2)) {
          out.add(d2);
          i++;
        }
      }
    }
  }
  return [...out].filter((e) => e >= sessionDate).sort();
}

function strikeStep(price: number): number {
  if (price < 5) return 0.5;
  if (price < 25) return 1;
  if (price < 100) return 2.5;
  if (price < 300) return 5;
  if (price < 1500) return 10;
  return 25;
}

/** Strikes listed for an expiry: a band of standard deviations around spot, wider for longer dates. */
export function strikesFor(u: UnderlyingProfile, years: number, density: number): number[] {
  const step = strikeStep(u.price);
  const width = Math.max(0.08, Math.min(0.85, u.atmVol * Math.sqrt(years) * 3.2));
  const lo = Math.max(step, Math.floor((u.price * (1 - width)) / step) * step);
  const hi = Math.ceil((u.price * (1 + width)) / step) * step;
  const count = Math.round((hi - lo) / step) + 1;
  const maxStrikes = Math.max(6, Math.round(density * (4 + 4 * Math.sqrt(u.activity))));
  const stride = Math.max(1, Math.ceil(count / maxStrikes));
  const atmIndex = Math.round((u.price - lo) / step);
  const strikes: number[] = [];
  for (let i = 0; i < count; i++) {
    if ((i - atmIndex) % stride === 0) strikes.push(Math.round((lo + i * step) * 1000) / 1000);
  }
  return strikes;
}

function tick(price: number): number {
  return price < 3 ? 0.01 : 0.05;
}

/** NBBO around a theoretical value: percentage spread widening for illiquid and far strikes (up to 3 standard deviations out). */
export function quoteAround(theo: number, moneynessSd: number, activity: number, rng: Random): { bid: number; ask: number } {
  const t = tick(theo);
  const pct = (0.012 + 0.05 / Math.sqrt(Math.max(activity, 0.2))) * (1 + 0.35 * Math.min(Math.abs(moneynessSd), 3)) * rng.uniform(0.7, 1.3);
  const half = Math.max(t, theo * pct) / 2;
  const bid = Math.max(0, Math.floor((theo - half) / t) * t);
  const ask = Math.max(bid + t, Math.ceil((theo + half) / t) * t);
  return { bid: round2(bid), ask: round2(ask) };
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/** Builds the option chain of one underlying at the snapshot. */
export function buildChain(
  u: UnderlyingProfile,
  clock: MarketClock,
  nextEarnings: string | null,
  density: number,
  rng: Random,
): Contract[] {
  const yearsToEarnings = nextEarnings ? yearsToExpiry(nextEarnings, "pm", clock.asOf) : null;
  const surface = surfaceFor(u, yearsToEarnings);
  const contracts: Contract[] = [];
  const q = u.dividendYield;
  const r = RISK_FREE_RATE;
  for (const rootSpec of u.roots) {
    for (const expiration of expirationsFor(u, rootSpec.monthlyOnly, clock.sessionDate)) {
      const T = yearsToExpiry(expiration, rootSpec.settlement, clock.asOf);
      const forward = u.price * Math.exp((r - q) * T);
      const dte = daysBetween(clock.sessionDate, expiration);
      const weekly = rootSpec.root !== u.symbol || dte < 60;
      const listedOn = addDays(expiration, weekly ? -(35 + rng.int(0, 20)) : -400);
      for (const strike of strikesFor(u, T, density)) {
        const sigma = surface.vol(strike, forward, T);
        const sd = Math.log(strike / forward) / (sigma * Math.sqrt(T));
        const roundness = strike % (strikeStep(u.price) * 10) === 0 ? 2.2 : strike % (strikeStep(u.price) * 2) === 0 ? 1.3 : 1;
        const baseOi = (900 * u.activity * roundness * Math.exp(-0.35 * sd * sd) * (dte === 0 ? 0.6 : 1)) / (1 + dte / 120);
        for (const side of ["call", "put"] as const) {
          const theo = bsm({ S: u.price, K: strike, T, r, q, sigma, side }).price;
          const { bid, ask } = quoteAround(theo, sd, u.activity, rng);
          const mid = (bid + ask) / 2;
          const terms = { S: u.price, K: strike, T, r, q, side };
          const analytics = quoteAnalytics(impliedVolatility({ price: mid, ...terms }), terms);
          const skewTilt = side === "put" ? 1.15 : 0.9;
          const openInterest = Math.round(rng.logNormal(baseOi * skewTilt, 0.6));
          const turnover = (dte <= 1 ? 1.6 : dte <= 7 ? 0.45 : 0.12) * Math.exp(-0.25 * sd * sd);
          const volume = Math.round(rng.logNormal(Math.max(openInterest, 30) * turnover, 0.8) * (rng.chance(0.15) ? 0 : 1));
          const traded = volume > 0;
          const last = traded || openInterest > 0 ? round2(Math.min(Math.max(mid * rng.uniform(0.97, 1.03), bid), ask)) : null;
          const lastTradeAt = traded
            ? new Date(clock.sessionOpen.getTime() + rng.uniform(0, 6.25 * 3_600_000)).toISOString()
            : last !== null
              ? new Date(clock.sessionOpen.getTime() - rng.int(1, 10) * 86_400_000 + rng.uniform(0, SESSION_MS)).toISOString()
              : null;
          contracts.push({
            optionSymbol: formatOcc({ root: rootSpec.root, expiration, side, strike }),
            underlying: u.symbol,
            root: rootSpec.root,
            expiration,
            strike,
            side,
            settlement: rootSpec.settlement,
            sigma,
            bid,
            ask,
            last,
            volume,
            openInterest,
            ...analytics,
            previousMark: round2(Math.max(0.01, mid * Math.exp(rng.normal() * 0.08))),
            lastTradeAt,
            listedOn,
          });
        }
      }
    }
  }
  return contracts;
}

/** Daily closes for `sessions` sessions ending at the current price (geometric Brownian motion, walked backwards). */
export function priceHistory(u: UnderlyingProfile, sessions: string[], rng: Random) {
  const dailyVol = (u.atmVol * 0.9) / Math.sqrt(252);
  const closes = new Array<number>(sessions.length);
  closes[sessions.length - 1] = u.price;
  for (let i = sessions.length - 1; i > 0; i--) {
    closes[i - 1] = (closes[i] as number) / Math.exp(dailyVol * rng.normal() + 0.0002);
  }
  return sessions.map((date, i) => {
    const close = closes[i] as number;
    const open =
      i === 0 ? close * Math.exp(dailyVol * 0.3 * rng.normal()) : (closes[i - 1] as number) * Math.exp(dailyVol * 0.25 * rng.normal());
    const high = Math.max(open, close) * (1 + Math.abs(rng.normal()) * dailyVol * 0.5);
    const low = Math.min(open, close) * (1 - Math.abs(rng.normal()) * dailyVol * 0.5);
    const volume = Math.round(rng.logNormal(2e6 * Math.max(u.activity, 0.1), 0.35));
    return { date, open: round2(open), high: round2(high), low: round2(low), close: round2(close), volume };
  });
}

/** 30-day ATM IV per session, mean-reverting in log space, ending at today's level. */
export function ivHistory(current: number, sessions: number, rng: Random): number[] {
  const path: number[] = [];
  let x = rng.normal() * 0.25;
  for (let i = 0; i < sessions; i++) {
    x += -0.04 * x + 0.07 * rng.normal();
    path.push(x);
  }
  const last = path[path.length - 1] as number;
  return path.map((v) => Math.round(current * Math.exp(v - last) * 1e6) / 1e6);
}
