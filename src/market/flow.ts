import { and, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Database } from "../db/client";
import { equityQuotes, flowPrints } from "../db/schema";
import { daysBetween } from "../domain/calendar";
import type { Bound } from "../domain/flow-window";
import { isoTimestamp } from "../db/timestamps";

/** The largest total a flow response counts (the spec's cap). */
export const FLOW_COUNT_CAP = 10_000;

/** Which prints a flow read selects, whatever window it reads (`/v1/flow`, the `flow` stream). */
export type FlowSelection = Omit<FlowFilter, "from" | "to">;

export interface FlowFilter {
  from: Bound;
  to: Bound;
  /** Underlyings; empty means market-wide. */
  tickers: string[];
  sentiment?: "bullish" | "bearish" | "neutral";
  side?: "ask" | "bid" | "mid";
  optionType?: "call" | "put";
  executionType?: "sweep" | "block" | "split";
  minPremium: number;
}

const newestSession = sql`(select max(${flowPrints.sessionDate}) from ${flowPrints})`;

/** A window bound as SQL: the newest session is read by the statement itself, in the same round trip. */
function boundSql(b: Bound): SQL {
  if ("date" in b) return sql`${b.date}::date`;
  if ("newest" in b) return newestSession;
  return sql`least(${b.atMostNewest}::date, ${newestSession})`;
}

function inWindow(from: Bound, to: Bound): SQL {
  return sql`${flowPrints.sessionDate} between ${boundSql(from)} and ${boundSql(to)}`;
}

/**
 * Canceled prints never happened; every other print is listed. A literal, not a parameter, so the
 * planner can prove the partial index `flow_prints_session_premium_idx` applies.
 */
const standing = sql`${flowPrints.printClass} <> 'canceled'`;

/**
 * Descending as the indexes are built (drizzle-kit writes `DESC NULLS LAST`): a plain `DESC`
 * means NULLS FIRST, which no index matches, and Postgres then sorts whole sessions.
 */
const descending = (column: AnyPgColumn) => sql`${column} desc nulls last`;

function flowConditions(f: FlowFilter): SQL | undefined {
  return and(
    inWindow(f.from, f.to),
    f.tickers.length === 1 ? eq(flowPrints.ticker, f.tickers[0] as string) : undefined,
    f.tickers.length > 1 ? inArray(flowPrints.ticker, f.tickers) : undefined,
    f.sentiment !== undefined ? eq(flowPrints.sentiment, f.sentiment) : undefined,
    f.side !== undefined ? eq(flowPrints.side, f.side) : undefined,
    f.optionType !== undefined ? eq(flowPrints.optionType, f.optionType) : undefined,
    f.executionType !== undefined ? eq(flowPrints.executionType, f.executionType) : undefined,
    gte(flowPrints.premium, f.minPremium),
    standing,
  );
}

export const flowPrintColumns = {
  executedAt: flowPrints.executedAt,
  sessionDate: flowPrints.sessionDate,
  ticker: flowPrints.ticker,
  optionSymbol: flowPrints.optionSymbol,
  optionType: flowPrints.optionType,
  strike: flowPrints.strike,
  expiration: flowPrints.expiration,
  side: flowPrints.side,
  sentiment: flowPrints.sentiment,
  executionType: flowPrints.executionType,
  premium: flowPrints.premium,
  size: flowPrints.size,
  price: flowPrints.price,
  underlyingPrice: flowPrints.underlyingPrice,
  otmPct: flowPrints.otmPct,
  volume: flowPrints.volume,
  openInterest: flowPrints.openInterest,
  openInterestSource: flowPrints.openInterestSource,
  opening: flowPrints.opening,
  delta: flowPrints.delta,
  iv: flowPrints.iv,
  ivSource: flowPrints.ivSource,
  isEtfOrIndex: flowPrints.isEtfOrIndex,
};

type FlowPrintRow = { [K in keyof typeof flowPrintColumns]: (typeof flowPrintColumns)[K]["_"]["data"] };

/** A stored print as `/v1/flow` and the `flow` stream serve it. */
export function servedPrint({ sessionDate, iv, isEtfOrIndex, executedAt, ...p }: FlowPrintRow) {
  return {
    ...p,
    executedAt: isoTimestamp(executedAt),
    dte: daysBetween(sessionDate, p.expiration),
    impliedVolatility: Math.round(iv * 1e6) / 1e4,
    isETFOrIndex: isEtfOrIndex,
  };
}
export type ServedPrint = ReturnType<typeof servedPrint>;

/**
 * The first `limit` matching prints, premium or time descending (the id breaks ties, so the order
 * is total). Market-wide by premium walks `flow_prints_premium_idx` from the top and stops at the
 * limit; one ticker's session reads `flow_prints_ticker_session_premium_idx` in order.
 */
export function flowPageQuery(db: Database, f: FlowFilter, sort: "premium" | "time", limit: number) {
  const order = sort === "premium" ? [descending(flowPrints.premium)] : [descending(flowPrints.executedAt)];
  return db
    .select(flowPrintColumns)
    .from(flowPrints)
    .where(flowConditions(f))
    .orderBy(...order, descending(flowPrints.id))
    .limit(limit);
}

/** How many prints match, counting no further than the cap. */
export function flowCountQuery(db: Database, f: FlowFilter) {
  const capped = db
    .select({ one: sql`1` })
    .from(flowPrints)
    .where(flowConditions(f))
    .limit(FLOW_COUNT_CAP)
    .as("capped");
  return db.select({ n: sql<number>`count(*)::int` }).from(capped);
}

/**
 * The newest print of the whole feed: its time (the flow `asOf`) and its session (the newest
 * session). Two index probes of `flow_prints_session_time_idx`: the newest session, then its
 * latest print (an equality prefix, so the index's own order answers).
 */
export function newestPrintQuery(db: Database) {
  return db
    .select({ executedAt: flowPrints.executedAt, sessionDate: flowPrints.sessionDate })
    .from(flowPrints)
    .where(sql`${flowPrints.sessionDate} = ${newestSession}`)
    .orderBy(descending(flowPrints.executedAt))
    .limit(1);
}

const signed = (condition: SQL, value: SQL) =>
  sql<number>`coalesce(sum(case when ${condition} and ${flowPrints.side} = 'ask' then ${value} when ${condition} and ${flowPrints.side} = 'bid' then -${value} else 0 end), 0)::float8`;

const regular = sql`${flowPrints.printClass} = 'regular'`;

/**
 * One ticker's prints at or above `minPremium` per UTC minute: net call and put premium (ask-side
 * minus bid-side, regular prints only — complex prints carry no direction), net contracts, and
 * the contracts of every standing print (up to a feed position, for a stream's starting point). Served by `flow_prints_ticker_time_idx`.
 */
export function netFlowMinutesQuery(db: Database, ticker: string, from: Bound, to: Bound, minPremium: number, throughId?: number) {
  const minute = sql<string>`date_trunc('minute', ${flowPrints.executedAt})`;
  return db
    .select({
      minute: sql<string>`${minute}::text`,
      netCall: signed(sql`${regular} and ${flowPrints.optionType} = 'call'`, sql`${flowPrints.premium}`),
      netPut: signed(sql`${regular} and ${flowPrints.optionType} = 'put'`, sql`${flowPrints.premium}`),
      netVolume: signed(regular, sql`${flowPrints.size}`),
      volume: sql<number>`sum(${flowPrints.size})::float8`,
    })
    .from(flowPrints)
    .where(
      and(
        eq(flowPrints.ticker, ticker),
        inWindow(from, to),
        gte(flowPrints.premium, minPremium),
        standing,
        throughId !== undefined ? lte(flowPrints.id, throughId) : undefined,
      ),
    )
    .groupBy(minute)
    .orderBy(minute);
}

/** The underlying's price at its newest print in the window that has one (0 is unknown), else its stored quote. */
export function netFlowSpotQuery(db: Database, ticker: string, from: Bound, to: Bound) {
  const atPrint = db
    .select({ price: flowPrints.underlyingPrice })
    .from(flowPrints)
    .where(and(eq(flowPrints.ticker, ticker), inWindow(from, to), standing, sql`${flowPrints.underlyingPrice} > 0`))
    .orderBy(descending(flowPrints.executedAt))
    .limit(1);
  const stored = db.select({ price: equityQuotes.price }).from(equityQuotes).where(eq(equityQuotes.symbol, ticker));
  return db.select({ spot: sql<number | null>`coalesce((${atPrint}), (${stored}))` }).from(sql`(select 1) as one`);
}
