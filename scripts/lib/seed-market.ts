import { addDays, daysBetween, newYorkInstant, previousSessions, todayInNewYork, isWeekday } from "../../src/domain/calendar";
import { bsm } from "../../src/analytics/black-scholes";
import { buildChain, ivHistory, marketClock, priceHistory, RISK_FREE_RATE, round2, yearsToExpiry, type Contract } from "../generator/market";
import { sessionPrints, type FlowRow } from "../generator/flow";
import { Random } from "../generator/random";
import { buildUniverse, OUT_OF_COVERAGE, type UnderlyingProfile } from "../generator/universe";
import { bulkInsert } from "./bulk-insert";
import type { SqlBackend } from "./sql-backend";

export type MarketSize = "test" | "demo" | "full";

interface SizeSpec {
  underlyings: number;
  /** Scales strikes listed per expiration. */
  density: number;
  /** Prints per session per unit of activity. */
  printsPerActivity: number;
}

const SIZES: Record<MarketSize, SizeSpec> = {
  test: { underlyings: 12, density: 0.6, printsPerActivity: 12 },
  demo: { underlyings: 40, density: 1, printsPerActivity: 60 },
  full: { underlyings: 5000, density: 3.2, printsPerActivity: 110 },
};

export interface SeedOptions {
  size: MarketSize;
  seed: number;
  /** Session date of the snapshot (YYYY-MM-DD); default: the latest weekday in New York. */
  sessionDate?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface SeedReport {
  sessionDate: string;
  underlyings: number;
  contracts: number;
  contractHistoryRows: number;
  flowPrints: number;
}

const HISTORY_SESSIONS = 30;
const IV_SESSIONS = 252;
const FLOW_SESSIONS = 7;

const TRUNCATE_MARKET =
  "truncate market_state, underlyings, equity_quotes, equity_daily, option_quotes, option_daily, iv_daily, earnings, dividends, flow_prints, screener_contracts";

export function latestSession(now = new Date()): string {
  let d = todayInNewYork(now);
  while (!isWeekday(d)) d = addDays(d, -1);
  return d;
}

function earningsDates(u: UnderlyingProfile, sessionDate: string, rng: Random): string[] {
  if (u.assetType !== "stock") return [];
  const next = addDays(sessionDate, rng.int(1, 88));
  return [addDays(next, -91), next, addDays(next, 91)].map((d) => {
    let x = d;
    while (!isWeekday(x)) x = addDays(x, 1);
    return x;
  });
}

/**
 * Generates a complete, internally consistent market for `options.size` and replaces the market
 * tables with it. Deterministic for a given seed and session date.
 */
export async function seedMarket(backend: SqlBackend, options: SeedOptions): Promise<SeedReport> {
  const spec = SIZES[options.size];
  const sessionDate = options.sessionDate ?? latestSession();
  const root = new Random(options.seed);
  const clock = marketClock(sessionDate);
  const universe = [...buildUniverse(spec.underlyings, root.fork("universe")), ...OUT_OF_COVERAGE];
  const dailySessions = previousSessions(sessionDate, IV_SESSIONS);
  const historySessions = dailySessions.slice(-HISTORY_SESSIONS);
  const flowSessions = dailySessions.slice(-FLOW_SESSIONS);
  const asOf = clock.asOf.toISOString();

  await backend.exec(TRUNCATE_MARKET);
  const report: SeedReport = { sessionDate, underlyings: 0, contracts: 0, contractHistoryRows: 0, flowPrints: 0 };

  const pending = {
    underlyings: [] as unknown[][],
    equityQuotes: [] as unknown[][],
    equityDaily: [] as unknown[][],
    ivDaily: [] as unknown[][],
    earnings: [] as unknown[][],
    dividends: [] as unknown[][],
    options: [] as unknown[][],
    optionDaily: [] as unknown[][],
    flow: [] as FlowRow[],
  };

  const flush = async (force: boolean) => {
    const big = pending.optionDaily.length + pending.options.length + pending.flow.length > 150_000;
    if (!force && !big) return;
    await bulkInsert(backend, "underlyings", UNDERLYING_COLUMNS, pending.underlyings);
    await bulkInsert(backend, "equity_quotes", { symbol: "text", price: "float8", bid: "float8", ask: "float8", previous_close: "float8", volume: "int8", as_of: "timestamptz" }, pending.equityQuotes);
    await bulkInsert(backend, "equity_daily", { symbol: "text", date: "date", open: "float8", high: "float8", low: "float8", close: "float8", volume: "int8" }, pending.equityDaily);
    await bulkInsert(backend, "iv_daily", { symbol: "text", date: "date", iv: "float8" }, pending.ivDaily);
    await bulkInsert(backend, "earnings", { symbol: "text", earnings_date: "date", timing: "text", fiscal_quarter: "text", eps_estimated: "float8", revenue_estimated: "float8" }, pending.earnings);
    await bulkInsert(backend, "dividends", { symbol: "text", ex_date: "date", pay_date: "date", amount: "float8", yield_percent: "float8", frequency: "text", is_estimated: "bool" }, pending.dividends);
    await bulkInsert(backend, "option_quotes", OPTION_COLUMNS, pending.options);
    await bulkInsert(backend, "option_daily", { option_symbol: "text", date: "date", volume: "int4", open_interest: "int4", mark: "float8", iv: "float8" }, pending.optionDaily);
    await bulkInsert(backend, "flow_prints", FLOW_COLUMNS, pending.flow);
    for (const list of Object.values(pending)) list.length = 0;
  };

  let done = 0;
  for (const u of universe) {
    const rng = root.fork(`u:${u.symbol}`);
    const earnings = earningsDates(u, sessionDate, rng);
    const nextEarnings = earnings.find((d) => d > sessionDate) ?? null;
    const closes = priceHistory(u, dailySessions, rng);
    const currentIv = u.atmVol;
    const ivPath = ivHistory(currentIv, IV_SESSIONS, rng);
    const contracts = u.roots.length ? buildChain(u, clock, nextEarnings, spec.density, rng) : [];

    pending.underlyings.push(underlyingRow(u, rng));
    const prev = closes[closes.length - 2]?.close ?? u.price;
    const spreadHalf = Math.max(0.01, round2(u.price * 0.0001));
    pending.equityQuotes.push([u.symbol, u.price, round2(u.price - spreadHalf), round2(u.price + spreadHalf), prev, closes[closes.length - 1]?.volume ?? 0, asOf]);
    for (const d of closes) pending.equityDaily.push([u.symbol, d.date, d.open, d.high, d.low, d.close, d.volume]);
    if (u.roots.length) dailySessions.forEach((d, i) => pending.ivDaily.push([u.symbol, d, ivPath[i]]));
    earnings.forEach((d, i) => pending.earnings.push(earningsRow(u, d, i, rng)));
    for (const row of dividendRows(u, sessionDate, rng)) pending.dividends.push(row);

    for (const c of contracts) pending.options.push(optionRow(c, u.price, asOf));
    report.contracts += contracts.length;

    const closeBySession = new Map(closes.map((d) => [d.date, d.close]));
    const ivBySession = new Map(dailySessions.map((d, i) => [d, ivPath[i] as number]));
    for (const c of contracts) {
      let oi = c.openInterest;
      for (let i = historySessions.length - 1; i >= 0; i--) {
        const day = historySessions[i] as string;
        if (day < c.listedOn || day > c.expiration) break;
        const spot = closeBySession.get(day) ?? u.price;
        const at = newYorkInstantCached(day);
        const T = yearsToExpiry(c.expiration, c.settlement, at);
        const sigma = c.sigma * ((ivBySession.get(day) ?? currentIv) / currentIv);
        const mark = round2(bsm({ S: spot, K: c.strike, T, r: RISK_FREE_RATE, q: u.dividendYield, sigma, side: c.side }).price);
        const volume = i === historySessions.length - 1 ? c.volume : Math.round(rng.logNormal(Math.max(c.volume, 1), 0.7));
        pending.optionDaily.push([c.optionSymbol, day, volume, oi, mark, Math.round(sigma * 1e6) / 1e6]);
        report.contractHistoryRows++;
        oi = Math.max(0, Math.round(oi - volume * rng.uniform(-0.2, 0.35)));
      }
    }

    for (const session of flowSessions) {
      const idx = dailySessions.indexOf(session);
      const open = closes[idx - 1]?.close ?? u.price;
      const close = closes[idx]?.close ?? u.price;
      const count = Math.round(spec.printsPerActivity * u.activity * rng.uniform(0.7, 1.3));
      const prints = sessionPrints(u, contracts, session, open, close, count, rng);
      for (const p of prints) pending.flow.push(p);
      report.flowPrints += prints.length;
    }

    report.underlyings++;
    options.onProgress?.(++done, universe.length);
    await flush(false);
  }
  await flush(true);
  await backend.typedQuery(
    "insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, $1, $2, $3, $4, $5)",
    [Date.now(), asOf, sessionDate, RISK_FREE_RATE, `synthetic:${options.size}:seed=${options.seed}`],
  );
  await backend.exec("analyze");
  return report;
}

const sessionCloseCache = new Map<string, Date>();
function newYorkInstantCached(day: string): Date {
  let d = sessionCloseCache.get(day);
  if (!d) {
    d = newYorkInstant(day, 16, 0);
    sessionCloseCache.set(day, d);
  }
  return d;
}

const UNDERLYING_COLUMNS = {
  symbol: "text",
  name: "text",
  asset_type: "text",
  sector: "text",
  industry: "text",
  market_cap: "float8",
  pe_ratio: "float8",
  logo_url: "text",
  optionable: "bool",
  in_coverage: "bool",
  dividend_yield: "float8",
  dividend_frequency: "text",
  rating: "text",
  consensus: "text",
  overall_score: "int2",
  dcf_score: "int2",
  roe_score: "int2",
  roa_score: "int2",
  de_score: "int2",
  pe_score: "int2",
  pb_score: "int2",
} as const;

function underlyingRow(u: UnderlyingProfile, rng: Random): unknown[] {
  const stock = u.assetType === "stock";
  const score = () => (stock ? rng.int(1, 5) : null);
  const optionable = u.roots.length > 0;
  return [
    u.symbol,
    u.name,
    u.assetType,
    u.sector,
    u.industry,
    u.marketCap,
    stock ? round2(rng.logNormal(22, 0.5)) : null,
    `https://logos.example.com/${u.symbol.toLowerCase()}.png`,
    optionable,
    optionable,
    u.dividendYield,
    u.dividendYield > 0 ? dividendFrequency(u) : null,
    stock ? rng.pick(["S", "A+", "A", "A-", "B+", "B", "B-", "C+", "C"]) : null,
    stock ? rng.pick(["Strong Buy", "Buy", "Hold", "Sell"]) : null,
    score(),
    score(),
    score(),
    score(),
    score(),
    score(),
    score(),
  ];
}

function dividendFrequency(u: UnderlyingProfile): string {
  return u.symbol.charCodeAt(0) % 7 === 0 ? "Semi-Annual" : "Quarterly";
}

function earningsRow(u: UnderlyingProfile, date: string, i: number, rng: Random): unknown[] {
  const month = Number(date.slice(5, 7));
  const quarter = Math.floor(((month + 8) % 12) / 3) + 1;
  const timing = rng.pick(["bmo", "amc", "amc", "bmo", "dmh", "unknown"]);
  const cap = u.marketCap ?? 1e10;
  return [
    u.symbol,
    date,
    timing,
    i === 2 && rng.chance(0.3) ? null : `Q${quarter} ${date.slice(0, 4)}`,
    rng.chance(0.1) ? null : round2(rng.uniform(-0.5, 4)),
    rng.chance(0.1) ? null : Math.round(cap * rng.uniform(0.015, 0.05)),
  ];
}

function dividendRows(u: UnderlyingProfile, sessionDate: string, rng: Random): unknown[][] {
  if (!(u.dividendYield > 0)) return [];
  const frequency = dividendFrequency(u);
  const period = frequency === "Quarterly" ? 91 : 182;
  const amount = round2((u.price * u.dividendYield) / (frequency === "Quarterly" ? 4 : 2)) || 0.01;
  const first = addDays(sessionDate, -rng.int(0, period - 1));
  const rows: unknown[][] = [];
  for (let ex = first; daysBetween(sessionDate, ex) <= 200; ex = addDays(ex, period)) {
    let exDate = ex;
    while (!isWeekday(exDate)) exDate = addDays(exDate, 1);
    const estimated = exDate > addDays(sessionDate, 45);
    rows.push([u.symbol, exDate, addDays(exDate, rng.int(10, 30)), amount, Math.round(u.dividendYield * 1e4) / 100, frequency, estimated]);
  }
  return rows;
}

const OPTION_COLUMNS = {
  option_symbol: "text",
  underlying: "text",
  root: "text",
  expiration: "date",
  strike: "float8",
  side: "text",
  settlement: "text",
  multiplier: "int4",
  bid: "float8",
  ask: "float8",
  last: "float8",
  volume: "int4",
  open_interest: "int4",
  iv: "float8",
  delta: "float8",
  gamma: "float8",
  theta: "float8",
  vega: "float8",
  rho: "float8",
  underlying_price: "float8",
  as_of: "timestamptz",
  last_trade_at: "timestamptz",
  previous_mark: "float8",
} as const;

function optionRow(c: Contract, spot: number, asOf: string): unknown[] {
  return [
    c.optionSymbol,
    c.underlying,
    c.root,
    c.expiration,
    c.strike,
    c.side,
    c.settlement,
    100,
    c.bid,
    c.ask,
    c.last,
    c.volume,
    c.openInterest,
    c.iv,
    c.delta,
    c.gamma,
    c.theta,
    c.vega,
    c.rho,
    spot,
    asOf,
    c.lastTradeAt,
    c.previousMark,
  ];
}

const FLOW_COLUMNS = {
  executed_at: "timestamptz",
  session_date: "date",
  ticker: "text",
  option_symbol: "text",
  option_type: "text",
  strike: "float8",
  expiration: "date",
  price: "float8",
  size: "int4",
  premium: "float8",
  bid: "float8",
  ask: "float8",
  underlying_price: "float8",
  side: "text",
  sentiment: "text",
  execution_type: "text",
  volume: "int4",
  open_interest: "int4",
  opening: "bool",
  delta: "float8",
  iv: "float8",
  is_etf_or_index: "bool",
} as const;
