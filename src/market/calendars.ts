import { and, asc, eq, gte, lte, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { dividends, earnings, underlyings } from "../db/schema";
import { readWithSnapshot, type Derived, type MarketRead } from "./snapshot";

/** An inclusive window of ET dates (YYYY-MM-DD), optionally one symbol. */
export interface CalendarWindow {
  from: string;
  to: string;
  symbol?: string;
}

export interface EarningsEvent {
  symbol: string;
  name: string;
  earningsDate: string;
  timing: "bmo" | "amc" | "dmh" | "unknown";
  fiscalQuarter: string | null;
  epsEstimated: number | null;
  revenueEstimated: number | null;
}

export interface DividendEvent {
  symbol: string;
  name: string;
  exDate: string;
  payDate: string;
  amount: number;
  yieldPercent: number;
  frequency: string;
  /** In the coverage universe (stocks and ETFs with options data); symbols we do not list are not. */
  inCoverage: boolean;
}

// A calendar may list a symbol our universe lacks (an OTC listing): it is then named by its ticker.
const nameOf = (symbol: typeof earnings.symbol | typeof dividends.symbol) => sql<string>`coalesce(${underlyings.name}, ${symbol})`;

function earningsQuery(db: Database, w: CalendarWindow) {
  return db
    .select({
      symbol: earnings.symbol,
      name: nameOf(earnings.symbol),
      earningsDate: earnings.earningsDate,
      timing: earnings.timing,
      fiscalQuarter: earnings.fiscalQuarter,
      epsEstimated: earnings.epsEstimated,
      revenueEstimated: earnings.revenueEstimated,
    })
    .from(earnings)
    .leftJoin(underlyings, eq(underlyings.symbol, earnings.symbol))
    .where(
      and(
        gte(earnings.earningsDate, w.from),
        lte(earnings.earningsDate, w.to),
        w.symbol !== undefined ? eq(earnings.symbol, w.symbol) : undefined,
      ),
    )
    .orderBy(asc(earnings.earningsDate), asc(earnings.symbol));
}

function dividendsQuery(db: Database, w: CalendarWindow) {
  return db
    .select({
      symbol: dividends.symbol,
      name: nameOf(dividends.symbol),
      exDate: dividends.exDate,
      payDate: dividends.payDate,
      amount: dividends.amount,
      yieldPercent: dividends.yieldPercent,
      frequency: dividends.frequency,
      inCoverage: sql<boolean>`coalesce(${underlyings.inCoverage}, false)`,
    })
    .from(dividends)
    .leftJoin(underlyings, eq(underlyings.symbol, dividends.symbol))
    .where(
      and(gte(dividends.exDate, w.from), lte(dividends.exDate, w.to), w.symbol !== undefined ? eq(dividends.symbol, w.symbol) : undefined),
    )
    .orderBy(asc(dividends.exDate), asc(dividends.symbol));
}

/** Every earnings event in the window, by date then symbol, read with the snapshot in one round trip. */
export async function readEarnings(read: MarketRead, w: CalendarWindow): Promise<Derived<EarningsEvent[]>> {
  const { db } = read;
  const {
    snapshot,
    rows: [rows],
  } = await readWithSnapshot(read, [earningsQuery(db, w)]);
  return { snapshot, value: rows };
}

/** Every dividend ex-date in the window (covered or not), by date then symbol, in one round trip. */
export async function readDividends(read: MarketRead, w: CalendarWindow): Promise<Derived<DividendEvent[]>> {
  const { db } = read;
  const {
    snapshot,
    rows: [rows],
  } = await readWithSnapshot(read, [dividendsQuery(db, w)]);
  return { snapshot, value: rows };
}
