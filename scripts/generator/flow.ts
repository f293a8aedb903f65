import { bsm } from "../../src/analytics/black-scholes";
import { impliedVolatility } from "../../src/analytics/implied-volatility";
import { classifyFill, sentimentOf } from "../../src/analytics/flow";
import { newYorkInstant } from "../../src/domain/calendar";
import { RISK_FREE_RATE, quoteAround, round2, SESSION_MS, yearsToExpiry, type Contract } from "./market";
import type { Random } from "./random";
import type { UnderlyingProfile } from "./universe";

export type FlowRow = [
  executedAt: string,
  sessionDate: string,
  ticker: string,
  optionSymbol: string,
  optionType: string,
  strike: number,
  expiration: string,
  price: number,
  size: number,
  premium: number,
  bid: number,
  ask: number,
  underlyingPrice: number,
  side: string,
  sentiment: string,
  executionType: string,
  volume: number,
  openInterest: number,
  opening: boolean,
  delta: number | null,
  iv: number | null,
  isEtfOrIndex: boolean,
];

/** Where a print lands relative to the NBBO: mostly at or near a touch, some at the mid. */
function printPrice(bid: number, ask: number, rng: Random): number {
  const u = rng.next();
  const spread = ask - bid;
  if (u < 0.3) return ask;
  if (u < 0.42) return round2(ask - spread * rng.uniform(0.05, 0.4));
  if (u < 0.67) return bid > 0 ? bid : ask;
  if (u < 0.77) return round2(bid + spread * rng.uniform(0.05, 0.4));
  if (u < 0.99) return round2((bid + ask) / 2);
  return round2(ask + 0.01);
}

/**
 * Trade prints of one underlying in one session, each priced against the NBBO of its own time
 * (the contract re-priced at the intraday spot), then classified by the quote rule.
 */
export function sessionPrints(
  u: UnderlyingProfile,
  contracts: readonly Contract[],
  session: string,
  open: number,
  close: number,
  count: number,
  rng: Random,
): FlowRow[] {
  const live = contracts.filter((c) => c.expiration >= session && c.listedOn <= session);
  if (live.length === 0 || count <= 0) return [];
  const cumulative: number[] = [];
  let total = 0;
  for (const c of live) {
    total += c.volume + 1;
    cumulative.push(total);
  }
  const sessionOpen = newYorkInstant(session, 9, 30).getTime();
  const sessionClose = sessionOpen + SESSION_MS;
  const dailyVol = u.atmVol / Math.sqrt(252);
  const isEtfOrIndex = u.assetType !== "stock";
  const runningVolume = new Map<string, number>();
  const rows: FlowRow[] = [];
  for (let i = 0; i < count; i++) {
    const target = rng.next() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < target) lo = mid + 1;
      else hi = mid;
    }
    const c = live[lo] as Contract;
    // U-shaped intraday activity: more prints near the open and the close.
    const f = rng.next();
    const frac = f < 0.5 ? 0.5 * Math.pow(2 * f, 1.6) : 1 - 0.5 * Math.pow(2 * (1 - f), 1.6);
    const at = new Date(sessionOpen + Math.floor(frac * SESSION_MS));
    const bridge = Math.sqrt(frac * (1 - frac)) * dailyVol * rng.normal();
    const spot = open * Math.pow(close / open, frac) * Math.exp(bridge);
    const T = yearsToExpiry(c.expiration, c.settlement, at);
    // A contract expiring this session trades only until it settles.
    if (c.expiration === session && (c.settlement === "am" || at.getTime() >= sessionClose)) continue;
    const theo = bsm({ S: spot, K: c.strike, T, r: RISK_FREE_RATE, q: u.dividendYield, sigma: c.sigma, side: c.side }).price;
    const sd = Math.log(c.strike / spot) / (c.sigma * Math.sqrt(T));
    const { bid, ask } = quoteAround(theo, sd, u.activity, rng);
    const price = printPrice(bid, ask, rng);
    if (!(price > 0)) continue;
    const block = rng.chance(0.04);
    const size = Math.max(1, Math.round(block ? rng.logNormal(400, 0.7) : rng.logNormal(8, 1.1)));
    const executionType = block ? "block" : rng.chance(0.55) ? "sweep" : "split";
    const side = classifyFill(price, bid, ask);
    const volume = (runningVolume.get(c.optionSymbol) ?? 0) + size;
    runningVolume.set(c.optionSymbol, volume);
    const iv = impliedVolatility({ price, S: spot, K: c.strike, T, r: RISK_FREE_RATE, q: u.dividendYield, side: c.side });
    const delta =
      iv === null ? null : bsm({ S: spot, K: c.strike, T, r: RISK_FREE_RATE, q: u.dividendYield, sigma: iv, side: c.side }).delta;
    rows.push([
      at.toISOString(),
      session,
      u.symbol,
      c.optionSymbol,
      c.side,
      c.strike,
      c.expiration,
      price,
      size,
      round2(price * size * 100),
      bid,
      ask,
      round2(spot),
      side,
      sentimentOf(c.side, side),
      executionType,
      volume,
      c.openInterest,
      size > c.openInterest,
      delta,
      iv,
      isEtfOrIndex,
    ]);
  }
  return rows;
}
