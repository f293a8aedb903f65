import { bsm } from "../../src/analytics/black-scholes";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { quoteAnalytics } from "../../src/analytics/quote-analytics";
import { addDays, daysBetween, iso, isSession, sessionOnOrBefore, thirdFriday } from "../../src/domain/calendar";
import { DEFAULT_RISK_FREE_RATE, yearsToExpiry, type MarketClock } from "../../src/domain/market-clock";
import { formatOcc } from "../../src/domain/occ";
import { DAY_MS } from "../../src/domain/time";
import type { OptionQuoteInput } from "./option-quote-row";
import type { Random } from "./random";
import { surfaceFor } from "./surface";
import type { UnderlyingProfile } from "./universe";

/** One generated contract: an `option_quotes` row's content, always two-sided, plus what the history and flow need. */
export interface Contract extends OptionQuoteInput {
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

/**
 * How the exchanges list the most traded index and ETF chains (full-size market only): dailies and
 * weeklies, monthlies, quarter-ends and two years of LEAPS, on a fine strike grid — the chains a
 * real SPX, SPY or QQQ user sees (SPX/SPXW ≥ 20,000 contracts over ≥ 40 expirations).
 */
export interface ExchangeListing {
  /** Strike increment near the money, USD. */
  step: number;
  /** Most strikes listed on one expiration (far expirations thin their grid to fit). */
  maxStrikes: number;
}

export const EXCHANGE_LISTINGS: Record<string, ExchangeListing> = {
  SPX: { step: 5, maxStrikes: 240 },
  SPY: { step: 1, maxStrikes: 120 },
  QQQ: { step: 1, maxStrikes: 120 },
};

/** The last session of a month. */
function monthEnd(year: number, month0: number): string {
  return sessionOnOrBefore(iso(new Date(Date.UTC(year, month0 + 1, 0))));
}

/**
 * Listed expirations for a root, as of a session. A Friday expiration that falls on a market
 * holiday (Good Friday, an observed Independence Day or Christmas) moves to the session before.
 * With an exchange listing: 15 sessions of dailies, 12 weekly Fridays, 12 monthlies, 8 quarter-ends
 * and December/January LEAPS two years out (the AM root: monthlies and LEAPS only).
 */
export function expirationsFor(u: UnderlyingProfile, monthlyOnly: boolean, sessionDate: string, listing?: ExchangeListing): string[] {
  const out = new Set<string>();
  const monthly = (y: number, m0: number) => out.add(sessionOnOrBefore(thirdFriday(y, m0)));
  const year = Number(sessionDate.slice(0, 4));
  const month = Number(sessionDate.slice(5, 7)) - 1;
  const months = u.activity >= 3 ? 12 : 6;
  for (let i = 0; i <= months; i++) monthly(year + Math.floor((month + i) / 12), (month + i) % 12);
  if (u.activity >= 3) {
    monthly(year + 1, 0);
    monthly(year + 2, 0);
  }
  if (listing) {
    monthly(year + 1, 11);
    monthly(year + 2, 11);
  }
  if (!monthlyOnly) {
    const weeks = listing ? 12 : u.activity >= 5 ? 8 : u.activity >= 1 ? 4 : 0;
    let d = sessionDate;
    for (let found = 0; found < weeks; d = addDays(d, 1)) {
      if (new Date(`${d}T00:00:00Z`).getUTCDay() === 5) {
        out.add(sessionOnOrBefore(d));
        found++;
      }
    }
    if (u.activity >= 8) {
      // Daily expirations (0DTE included) on the most active names.
      for (let i = 0, d2 = sessionDate; i < (listing ? 15 : 5); d2 = addDays(d2, 1)) {
        if (isSession(d2)) {
          out.add(d2);
          i++;
        }
      }
    }
    if (listing) {
      for (let q = 0; q < 8; q++) {
        const m = Math.floor(month / 3) * 3 + 2 + 3 * q;
        out.add(monthEnd(year + Math.floor(m / 12), m % 12));
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
export function strikesFor(u: UnderlyingProfile, years: number, density: number, listing?: ExchangeListing): number[] {
  const step = listing?.step ?? strikeStep(u.price);
  const width = Math.max(0.08, Math.min(0.85, u.atmVol * Math.sqrt(years) * 3.2));
  const lo = Math.max(step, Math.floor((u.price * (1 - width)) / step) * step);
  const hi = Math.ceil((u.price * (1 + width)) / step) * step;
  const count = Math.round((hi - lo) / step) + 1;
  const maxStrikes = listing?.maxStrikes ?? Math.max(6, Math.round(density * (4 + 4 * Math.sqrt(u.activity))));
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

/** One strike of one expiration of one root, as the contracts on both sides share it. */
interface StrikeContext {
  u: UnderlyingProfile;
  clock: MarketClock;
  root: Contract["root"];
  settlement: Contract["settlement"];
  expiration: string;
  listedOn: string;
  strike: number;
  T: number;
  dte: number;
  sigma: number;
  /** Log-moneyness in standard deviations. */
  sd: number;
  /** Open interest before the side's tilt. */
  baseOi: number;
}

/** Builds the option chain of one underlying at the snapshot. */
export function buildChain(
  u: UnderlyingProfile,
  clock: MarketClock,
  nextEarnings: string | null,
  density: number,
  rng: Random,
  listing?: ExchangeListing,
): Contract[] {
  const yearsToEarnings = nextEarnings ? yearsToExpiry(nextEarnings, "pm", clock.asOf) : null;
  const surface = surfaceFor(u, yearsToEarnings);
  const contracts: Contract[] = [];
  for (const rootSpec of u.roots) {
    for (const expiration of expirationsFor(u, rootSpec.monthlyOnly, clock.sessionDate, listing)) {
      const T = yearsToExpiry(expiration, rootSpec.settlement, clock.asOf);
      // Settled before the snapshot (an AM-settled expiration on its own day): no longer quoted.
      if (!(T > 0)) continue;
      const forward = u.price * Math.exp((DEFAULT_RISK_FREE_RATE - u.dividendYield) * T);
      const dte = daysBetween(clock.sessionDate, expiration);
      const weekly = rootSpec.root !== u.symbol || dte < 60;
      const listedOn = addDays(expiration, weekly ? -(35 + rng.int(0, 20)) : -400);
      for (const strike of strikesFor(u, T, density, listing)) {
        const sigma = surface.vol(strike, forward, T);
        const sd = Math.log(strike / forward) / (sigma * Math.sqrt(T));
        const roundness = strike % (strikeStep(u.price) * 10) === 0 ? 2.2 : strike % (strikeStep(u.price) * 2) === 0 ? 1.3 : 1;
        const baseOi = (900 * u.activity * roundness * Math.exp(-0.35 * sd * sd) * (dte === 0 ? 0.6 : 1)) / (1 + dte / 120);
        const at = {
          u,
          clock,
          root: rootSpec.root,
          settlement: rootSpec.settlement,
          expiration,
          listedOn,
          strike,
          T,
          dte,
          sigma,
          sd,
          baseOi,
        };
        for (const side of ["call", "put"] as const) contracts.push(priceContract(at, side, rng));
      }
    }
  }
  return contracts;
}

/** One contract: its NBBO around the model price, IV and Greeks from the mid, open interest, volume and last trade. */
function priceContract(at: StrikeContext, side: "call" | "put", rng: Random): Contract {
  const { u, clock, strike, T, dte, sigma, sd } = at;
  const terms = { S: u.price, K: strike, T, r: DEFAULT_RISK_FREE_RATE, q: u.dividendYield, side };
  const theo = bsm({ ...terms, sigma }).price;
  const { bid, ask } = quoteAround(theo, sd, u.activity, rng);
  const mid = (bid + ask) / 2;
  const analytics = quoteAnalytics(impliedVolatility({ price: mid, ...terms }), terms);
  const skewTilt = side === "put" ? 1.15 : 0.9;
  const openInterest = Math.round(rng.logNormal(at.baseOi * skewTilt, 0.6));
  const turnover = (dte <= 1 ? 1.6 : dte <= 7 ? 0.45 : 0.12) * Math.exp(-0.25 * sd * sd);
  const volume = Math.round(rng.logNormal(Math.max(openInterest, 30) * turnover, 0.8) * (rng.chance(0.15) ? 0 : 1));
  const traded = volume > 0;
  const last = traded || openInterest > 0 ? round2(Math.min(Math.max(mid * rng.uniform(0.97, 1.03), bid), ask)) : null;
  const open = clock.sessionOpen.getTime();
  // Traded today: between the open and the snapshot; otherwise during one of the last ten sessions.
  const lastTradeAt = traded
    ? new Date(open + rng.uniform(0, clock.asOf.getTime() - open)).toISOString()
    : last !== null
      ? new Date(open - rng.int(1, 10) * DAY_MS + rng.uniform(0, clock.sessionClose.getTime() - open)).toISOString()
      : null;
  return {
    optionSymbol: formatOcc({ root: at.root, expiration: at.expiration, side, strike }),
    underlying: u.symbol,
    root: at.root,
    expiration: at.expiration,
    strike,
    side,
    settlement: at.settlement,
    sigma,
    bid,
    ask,
    last,
    volume,
    openInterest,
    ...analytics,
    previousMark: round2(Math.max(0.01, mid * Math.exp(rng.normal() * 0.08))),
    lastTradeAt,
    listedOn: at.listedOn,
  };
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
