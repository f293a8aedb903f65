import type { ColumnTypes } from "../lib/bulk-insert";
import { addDays, daysBetween, isWeekday } from "../../src/domain/calendar";
import type { FlowRow } from "./flow";
import { round2, type Contract } from "./market";
import type { Random } from "./random";
import type { UnderlyingProfile } from "./universe";

export const UNDERLYING_COLUMNS = {
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

export function underlyingRow(u: UnderlyingProfile, rng: Random): unknown[] {
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

export function earningsRow(u: UnderlyingProfile, date: string, i: number, rng: Random): unknown[] {
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

export function dividendRows(u: UnderlyingProfile, sessionDate: string, rng: Random): unknown[][] {
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

export const OPTION_COLUMNS = {
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

/** What an `option_quotes` row needs: generated contracts and loaded files both provide it. */
export type OptionQuoteInput = Pick<
  Contract,
  | "optionSymbol"
  | "underlying"
  | "root"
  | "expiration"
  | "strike"
  | "side"
  | "settlement"
  | "bid"
  | "ask"
  | "last"
  | "volume"
  | "openInterest"
  | "iv"
  | "delta"
  | "gamma"
  | "theta"
  | "vega"
  | "rho"
> &
  Partial<Pick<Contract, "lastTradeAt" | "previousMark">>;

/** One `option_quotes` row in OPTION_COLUMNS order. */
export function optionRow(c: OptionQuoteInput, spot: number, asOf: string): unknown[] {
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
    c.lastTradeAt ?? null,
    c.previousMark ?? null,
  ];
}

export const FLOW_COLUMNS = {
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

/** Rows of every market table for one underlying, in the column order of the *_COLUMNS tables. */
export interface UnderlyingRows {
  underlyings: unknown[][];
  equityQuotes: unknown[][];
  equityDaily: unknown[][];
  ivDaily: unknown[][];
  earnings: unknown[][];
  dividends: unknown[][];
  options: unknown[][];
  optionDaily: unknown[][];
  flow: FlowRow[];
}

export type TableName = keyof UnderlyingRows;

/** Target table and column types of each kind of row. */
export const TABLES: Record<TableName, [table: string, types: ColumnTypes]> = {
  underlyings: ["underlyings", UNDERLYING_COLUMNS],
  equityQuotes: [
    "equity_quotes",
    { symbol: "text", price: "float8", bid: "float8", ask: "float8", previous_close: "float8", volume: "int8", as_of: "timestamptz" },
  ],
  equityDaily: [
    "equity_daily",
    { symbol: "text", date: "date", open: "float8", high: "float8", low: "float8", close: "float8", volume: "int8" },
  ],
  ivDaily: ["iv_daily", { symbol: "text", date: "date", iv: "float8" }],
  earnings: [
    "earnings",
    { symbol: "text", earnings_date: "date", timing: "text", fiscal_quarter: "text", eps_estimated: "float8", revenue_estimated: "float8" },
  ],
  dividends: [
    "dividends",
    {
      symbol: "text",
      ex_date: "date",
      pay_date: "date",
      amount: "float8",
      yield_percent: "float8",
      frequency: "text",
      is_estimated: "bool",
    },
  ],
  options: ["option_quotes", OPTION_COLUMNS],
  optionDaily: [
    "option_daily",
    { option_symbol: "text", date: "date", volume: "int4", open_interest: "int4", mark: "float8", iv: "float8" },
  ],
  flow: ["flow_prints", FLOW_COLUMNS],
};

export function emptyRows(): UnderlyingRows {
  return {
    underlyings: [],
    equityQuotes: [],
    equityDaily: [],
    ivDaily: [],
    earnings: [],
    dividends: [],
    options: [],
    optionDaily: [],
    flow: [],
  };
}
