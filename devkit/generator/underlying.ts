import { DEFAULT_RISK_FREE_RATE, marketClock, yearsToExpiry } from "../../src/domain/market-clock";
import { bsm } from "../../src/analytics/black-scholes";
import { addDays, sessionCloseAt, sessionOnOrAfter } from "../../src/domain/calendar";
import { sessionPrints } from "./flow";
import { buildChain, EXCHANGE_LISTINGS, ivHistory, priceHistory, round2 } from "./market";
import type { Random } from "./random";
import { optionQuoteRow } from "./option-quote-row";
import { dividendRows, earningsRow, underlyingRow, type UnderlyingRows } from "./rows";
import type { UnderlyingProfile } from "./universe";

/** How large a market is: underlyings, strikes listed per expiration, prints per session. */
export interface SizeSpec {
  underlyings: number;
  /** Scales strikes listed per expiration. */
  density: number;
  /** Prints per session per unit of activity. */
  printsPerActivity: number;
  /** The market's index. */
  index: "SPX" | "NDX";
  /** List the flagship chains as the exchanges do (`EXCHANGE_LISTINGS`); otherwise a lighter schedule. */
  exchangeListings: boolean;
}

export const IV_SESSIONS = 252;

export interface MarketContext {
  spec: SizeSpec;
  clock: ReturnType<typeof marketClock>;
  dailySessions: string[];
  historySessions: string[];
  flowSessions: string[];
  asOf: string;
}

function earningsDates(u: UnderlyingProfile, sessionDate: string, rng: Random): string[] {
  if (u.assetType !== "stock") return [];
  const next = addDays(sessionDate, rng.int(1, 88));
  return [addDays(next, -91), next, addDays(next, 91)].map(sessionOnOrAfter);
}

/** Generates one underlying's quote, history, calendars, chain, contract history and flow. */
export function generateUnderlying(u: UnderlyingProfile, ctx: MarketContext, rng: Random): UnderlyingRows {
  const { clock, dailySessions, historySessions, flowSessions, asOf, spec } = ctx;
  const sessionDate = clock.sessionDate;
  const earnings = earningsDates(u, sessionDate, rng);
  const nextEarnings = earnings.find((d) => d > sessionDate) ?? null;
  const closes = priceHistory(u, dailySessions, rng);
  const ivPath = ivHistory(u.atmVol, IV_SESSIONS, rng);
  const contracts = u.roots.length
    ? buildChain(u, clock, nextEarnings, spec.density, rng, spec.exchangeListings ? EXCHANGE_LISTINGS[u.symbol] : undefined)
    : [];
  const prev = closes[closes.length - 2]?.close ?? u.price;
  const spreadHalf = Math.max(0.01, round2(u.price * 0.0001));

  const rows: UnderlyingRows = {
    underlyings: [underlyingRow(u, rng)],
    equityQuotes: [
      {
        symbol: u.symbol,
        price: u.price,
        bid: round2(u.price - spreadHalf),
        ask: round2(u.price + spreadHalf),
        previousClose: prev,
        volume: closes[closes.length - 1]?.volume ?? 0,
        asOf,
      },
    ],
    equityDaily: closes.map((d) => ({ symbol: u.symbol, ...d })),
    ivDaily: u.roots.length ? dailySessions.map((date, i) => ({ symbol: u.symbol, date, iv: ivPath[i] as number })) : [],
    earnings: earnings.map((d, i) => earningsRow(u, d, i, rng)),
    dividends: dividendRows(u, sessionDate, rng),
    options: contracts.map((c) => optionQuoteRow(c, u.price, asOf)),
    optionDaily: [],
    flow: [],
  };

  const closeBySession = new Map(closes.map((d) => [d.date, d.close]));
  const ivBySession = new Map(dailySessions.map((d, i) => [d, ivPath[i] as number]));
  for (const c of contracts) {
    let oi = c.openInterest;
    for (let i = historySessions.length - 1; i >= 0; i--) {
      const day = historySessions[i] as string;
      if (day < c.listedOn || day > c.expiration) break;
      const spot = closeBySession.get(day) ?? u.price;
      const T = yearsToExpiry(c.expiration, c.settlement, sessionCloseAt(day));
      const sigma = c.sigma * ((ivBySession.get(day) ?? u.atmVol) / u.atmVol);
      const mark = round2(bsm({ S: spot, K: c.strike, T, r: DEFAULT_RISK_FREE_RATE, q: u.dividendYield, sigma, side: c.side }).price);
      const volume = i === historySessions.length - 1 ? c.volume : Math.round(rng.logNormal(Math.max(c.volume, 1), 0.7));
      rows.optionDaily.push({ optionSymbol: c.optionSymbol, date: day, volume, openInterest: oi, mark, iv: Math.round(sigma * 1e6) / 1e6 });
      oi = Math.max(0, Math.round(oi - volume * rng.uniform(-0.2, 0.35)));
    }
  }

  for (const session of flowSessions) {
    const idx = dailySessions.indexOf(session);
    const open = closes[idx - 1]?.close ?? u.price;
    const close = closes[idx]?.close ?? u.price;
    const count = Math.round(spec.printsPerActivity * u.activity * rng.uniform(0.7, 1.3));
    for (const p of sessionPrints(u, contracts, session, open, close, count, rng)) rows.flow.push(p);
  }
  return rows;
}
