import { DEFAULT_RISK_FREE_RATE, yearsToExpiry } from "../../src/domain/market-clock";
import { bsm } from "../../src/analytics/black-scholes";
import { classifyFill, isOpening, otmPercent, premiumOf, printVolatility, sentimentOf } from "../../src/analytics/flow";
import { sessionCloseAt, sessionOpenAt } from "../../src/domain/calendar";
import { quoteAround, round2, type Contract } from "./market";
import { flowPrints } from "../../src/db/schema";
import type { InsertRow } from "../../ingest/db/bulk-insert";
import type { Random } from "./random";
import type { UnderlyingProfile } from "./universe";

/** One `flow_prints` row, as the generator writes it. */
export type FlowRow = InsertRow<typeof flowPrints>;

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

/** Contracts drawn in proportion to their volume (plus one, so quiet contracts still trade now and then). */
function volumeWeighted(live: readonly Contract[]): (u: number) => Contract {
  const cumulative: number[] = [];
  let total = 0;
  for (const c of live) {
    total += c.volume + 1;
    cumulative.push(total);
  }
  return (u) => {
    const target = u * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < target) lo = mid + 1;
      else hi = mid;
    }
    return live[lo] as Contract;
  };
}

/** One session's clock and the underlying's path through it (open to close, a Brownian bridge between). */
interface SessionPath {
  session: string;
  openAt: number;
  closeAt: number;
  open: number;
  close: number;
  dailyVol: number;
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
  const pick = volumeWeighted(live);
  // Early-close sessions (13:00 ET) are 3.5 hours long.
  const path: SessionPath = {
    session,
    openAt: sessionOpenAt(session).getTime(),
    closeAt: sessionCloseAt(session).getTime(),
    open,
    close,
    dailyVol: u.atmVol / Math.sqrt(252),
  };
  const runningVolume = new Map<string, number>();
  const rows: FlowRow[] = [];
  for (let i = 0; i < count; i++) {
    const row = printOf(u, pick(rng.next()), path, runningVolume, rng);
    if (row) rows.push(row);
  }
  return rows;
}

/** One print of contract `c` at a random time of the session, or null when none can happen then. */
function printOf(u: UnderlyingProfile, c: Contract, path: SessionPath, runningVolume: Map<string, number>, rng: Random): FlowRow | null {
  const { session, openAt, closeAt, open, close } = path;
  // U-shaped intraday activity: more prints near the open and the close.
  const f = rng.next();
  const frac = f < 0.5 ? 0.5 * Math.pow(2 * f, 1.6) : 1 - 0.5 * Math.pow(2 * (1 - f), 1.6);
  const at = new Date(openAt + Math.floor(frac * (closeAt - openAt)));
  const bridge = Math.sqrt(frac * (1 - frac)) * path.dailyVol * rng.normal();
  const spot = open * Math.pow(close / open, frac) * Math.exp(bridge);
  const T = yearsToExpiry(c.expiration, c.settlement, at);
  // A contract expiring this session trades only until it settles.
  if (c.expiration === session && (c.settlement === "am" || at.getTime() >= closeAt)) return null;
  const terms = { K: c.strike, T, r: DEFAULT_RISK_FREE_RATE, q: u.dividendYield, side: c.side };
  const theo = bsm({ S: spot, ...terms, sigma: c.sigma }).price;
  const sd = Math.log(c.strike / spot) / (c.sigma * Math.sqrt(T));
  const { bid, ask } = quoteAround(theo, sd, u.activity, rng);
  const price = printPrice(bid, ask, rng);
  if (!(price > 0)) return null;
  const block = rng.chance(0.04);
  const size = Math.max(1, Math.round(block ? rng.logNormal(400, 0.7) : rng.logNormal(8, 1.1)));
  const executionType = block ? "block" : rng.chance(0.55) ? "sweep" : "split";
  const side = classifyFill(price, bid, ask);
  const underlyingPrice = round2(spot);
  const volume = (runningVolume.get(c.optionSymbol) ?? 0) + size;
  runningVolume.set(c.optionSymbol, volume);
  // The trade price at the intraday spot, else the NBBO mid, else the contract's snapshot IV (ANALYTICS.md §4, docs/flow.md).
  const { iv, delta, source: ivSource } = printVolatility({ price, bid, ask, spot, terms, snapshot: { iv: c.iv, delta: c.delta } });
  const isEtfOrIndex = u.assetType !== "stock";
  return {
    executedAt: at.toISOString(),
    sessionDate: session,
    ticker: u.symbol,
    optionSymbol: c.optionSymbol,
    optionType: c.side,
    strike: c.strike,
    expiration: c.expiration,
    price,
    size,
    premium: premiumOf(price, size),
    bid,
    ask,
    underlyingPrice,
    side,
    sentiment: sentimentOf(c.side, side),
    executionType,
    volume,
    // The snapshot's open interest, for every retained session.
    openInterest: c.openInterest,
    openInterestSource: "session",
    opening: isOpening(size, c.openInterest),
    delta,
    iv,
    ivSource,
    isEtfOrIndex,
    otmPct: otmPercent(c.side, c.strike, underlyingPrice),
  };
}
