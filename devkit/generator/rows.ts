import { placeholderLogoUrl } from "../../ingest/contracts/write-definitions";
import type { PgTable } from "drizzle-orm/pg-core";
import { addDays, daysBetween, sessionOnOrAfter } from "../../src/domain/calendar";
import {
  dividends,
  earnings,
  equityDaily,
  equityQuotes,
  flowPrints,
  ivDaily,
  optionDaily,
  optionQuotes,
  underlyings,
} from "../../src/db/schema";
import type { InsertRow } from "../../ingest/db/bulk-insert";
import { round2 } from "./market";
import type { Random } from "./random";
import type { UnderlyingProfile } from "./universe";

export function underlyingRow(u: UnderlyingProfile, rng: Random): InsertRow<typeof underlyings> {
  const stock = u.assetType === "stock";
  const score = () => (stock ? rng.int(1, 5) : null);
  const optionable = u.roots.length > 0;
  return {
    symbol: u.symbol,
    name: u.name,
    assetType: u.assetType,
    sector: u.sector,
    industry: u.industry,
    marketCap: u.marketCap,
    peRatio: stock ? round2(rng.logNormal(22, 0.5)) : null,
    logoUrl: placeholderLogoUrl(u.symbol),
    optionable,
    inCoverage: optionable,
    dividendYield: u.dividendYield,
    dividendFrequency: u.dividendYield > 0 ? dividendFrequency(u) : null,
    rating: stock ? rng.pick(["S", "A+", "A", "A-", "B+", "B", "B-", "C+", "C"]) : null,
    consensus: stock ? rng.pick(["Strong Buy", "Buy", "Hold", "Sell"]) : null,
    overallScore: score(),
    discountedCashFlowScore: score(),
    returnOnEquityScore: score(),
    returnOnAssetsScore: score(),
    debtToEquityScore: score(),
    priceToEarningsScore: score(),
    priceToBookScore: score(),
  };
}

function dividendFrequency(u: UnderlyingProfile): string {
  return u.symbol.charCodeAt(0) % 7 === 0 ? "Semi-Annual" : "Quarterly";
}

export function earningsRow(u: UnderlyingProfile, date: string, i: number, rng: Random): InsertRow<typeof earnings> {
  const month = Number(date.slice(5, 7));
  const quarter = Math.floor(((month + 8) % 12) / 3) + 1;
  const timing = rng.pick(["bmo", "amc", "amc", "bmo", "dmh", "unknown"] as const);
  const cap = u.marketCap ?? 1e10;
  return {
    symbol: u.symbol,
    earningsDate: date,
    timing,
    fiscalQuarter: i === 2 && rng.chance(0.3) ? null : `Q${quarter} ${date.slice(0, 4)}`,
    epsEstimated: rng.chance(0.1) ? null : round2(rng.uniform(-0.5, 4)),
    revenueEstimated: rng.chance(0.1) ? null : Math.round(cap * rng.uniform(0.015, 0.05)),
  };
}

export function dividendRows(u: UnderlyingProfile, sessionDate: string, rng: Random): InsertRow<typeof dividends>[] {
  if (!(u.dividendYield > 0)) return [];
  const frequency = dividendFrequency(u);
  const period = frequency === "Quarterly" ? 91 : 182;
  const amount = round2((u.price * u.dividendYield) / (frequency === "Quarterly" ? 4 : 2)) || 0.01;
  const first = addDays(sessionDate, -rng.int(0, period - 1));
  const rows: InsertRow<typeof dividends>[] = [];
  for (let ex = first; daysBetween(sessionDate, ex) <= 200; ex = addDays(ex, period)) {
    const exDate = sessionOnOrAfter(ex);
    const estimated = exDate > addDays(sessionDate, 45);
    const payDate = addDays(exDate, rng.int(10, 30));
    rows.push({
      symbol: u.symbol,
      exDate,
      payDate,
      amount,
      yieldPercent: Math.round(u.dividendYield * 1e4) / 100,
      frequency,
      isEstimated: estimated,
    });
  }
  return rows;
}

/** Rows of every market table for one underlying. */
export interface UnderlyingRows {
  underlyings: InsertRow<typeof underlyings>[];
  equityQuotes: InsertRow<typeof equityQuotes>[];
  equityDaily: InsertRow<typeof equityDaily>[];
  ivDaily: InsertRow<typeof ivDaily>[];
  earnings: InsertRow<typeof earnings>[];
  dividends: InsertRow<typeof dividends>[];
  options: InsertRow<typeof optionQuotes>[];
  optionDaily: InsertRow<typeof optionDaily>[];
  flow: InsertRow<typeof flowPrints>[];
}

export type TableName = keyof UnderlyingRows;

/** The table each kind of row goes to, in the order they are written (underlyings first: quotes reference them). */
export const TABLES = {
  underlyings,
  equityQuotes,
  equityDaily,
  ivDaily,
  earnings,
  dividends,
  options: optionQuotes,
  optionDaily,
  flow: flowPrints,
} as const satisfies Record<TableName, PgTable>;

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
