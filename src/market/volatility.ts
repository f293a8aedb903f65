import { and, eq, gt, sql } from "drizzle-orm";
import { atmIv30, IV30_CHAIN_DAYS } from "../analytics/atm-iv";
import type { IvObservation } from "../analytics/iv-rank";
import { ivDaily, marketState, screenerUnderlyingBaselines, underlyings } from "../db/schema";
import { gexChain, gexContractsQuery, gexUnderlyingQuery, marketTermsQuery } from "./gamma-exposure";
import { readWithSnapshot, type Derived, type MarketRead } from "./snapshot";

/** History read for the 52-week window and the one-week change. */
const HISTORY_DAYS = 366;

/** The loaded session moved by `days`, read by the statement itself (no extra round trip). */
const sessionPlus = (days: number) => sql`(select ${marketState.sessionDate} + ${days}::int from ${marketState})`;

/** An underlying's ranked IV series as of the loaded session (decimal IVs). */
export interface IvInputs {
  exists: boolean;
  /** The loaded session, YYYY-MM-DD; null before any load. */
  sessionDate: string | null;
  /**
   * The session's 30-day ATM IV: its stored row (the ingestor keeps it at the newest minute during a
   * session), else computed from the chain (a loaded file); null when neither exists.
   */
  current: number | null;
  history: IvObservation[];
}

/**
 * The inputs of the IV context in one round trip: the stored daily series and, for a session
 * with no stored value (a loaded vendor file), the near chain to compute it from.
 */
export async function readIvInputs(read: MarketRead, symbol: string): Promise<Derived<IvInputs>> {
  const { db } = read;
  const {
    snapshot,
    rows: [underlying, terms, history, chainRows],
  } = await readWithSnapshot(read, [
    gexUnderlyingQuery(db, symbol),
    marketTermsQuery(db),
    db
      .select({ date: ivDaily.date, iv: ivDaily.iv })
      .from(ivDaily)
      .where(and(eq(ivDaily.symbol, symbol), gt(ivDaily.date, sessionPlus(-HISTORY_DAYS)))),
    gexContractsQuery(db, symbol, sessionPlus(0), sessionPlus(IV30_CHAIN_DAYS)),
  ]);
  const sessionDate = terms[0]?.sessionDate ?? null;
  const stored = history.find((o) => o.date === sessionDate)?.iv ?? null;
  const chain = gexChain(snapshot, underlying, terms, chainRows);
  const current = stored ?? (chain.spot === null ? null : atmIv30(chain.contracts, { spot: chain.spot, ...chain.market }));
  return { snapshot, value: { exists: chain.exists, sessionDate, current, history } };
}

/** One underlying's ranking inputs (decimal IVs), for the top-IV and top-IVR lists. */
export interface IvRankingRow {
  symbol: string;
  name: string;
  marketCap: number | null;
  logoUrl: string;
  iv: number;
  high: number;
  low: number;
  /** The reference of the one-week change; null when none is stored. */
  weekAgo: number | null;
}

/** Stocks above this IV (decimal) are left out of both rankings (spec: above 200%). */
export const RANKED_IV_MAX = 2;

/**
 * Every stock with a stored IV for the loaded session at or below 200%, with its 52-week high and
 * low (the session included) and its one-week reference (docs/volatility.md), in one statement.
 * The extremes before the session are the session's underlying baselines (written once a session
 * from the same `iv_daily` window, ingest/screener/baselines.ts), merged with the session's IV:
 * aggregating a year of every stock's IVs cost 1.7 s a call at full size, and the ingestor moves
 * the rankings' scope with every group of a minute. A stock without a baseline row is aggregated.
 * Each stock's rows are reached by its key (symbol, date), never by a scan of the whole history:
 * the session's IV is a lateral with a limit, which the planner cannot flatten into a join (as a
 * join it scanned every stock's year to find the session's rows).
 */
export async function readIvRankings(read: MarketRead): Promise<Derived<IvRankingRow[]>> {
  const { db } = read;
  const rows = sql`
    select u.symbol, u.name, u.market_cap as "marketCap", u.logo_url as "logoUrl", c.iv,
      case when b.symbol is null then h.high else greatest(b.iv_high, c.iv) end as high,
      case when b.symbol is null then h.low else least(b.iv_low, c.iv) end as low,
      w.iv as "weekAgo"
    from ${marketState} m
    join ${underlyings} u on u.asset_type = 'stock'
    join lateral (
      select i.iv from ${ivDaily} i
      where i.symbol = u.symbol and i.date = m.session_date and i.iv > 0 and i.iv <= ${RANKED_IV_MAX} limit 1
    ) c on true
    left join ${screenerUnderlyingBaselines} b on b.session_date = m.session_date and b.symbol = u.symbol
    left join lateral (
      select max(i.iv) as high, min(i.iv) as low from ${ivDaily} i
      where b.symbol is null and i.symbol = u.symbol and i.date > m.session_date - 365 and i.date <= m.session_date and i.iv > 0
    ) h on true
    left join lateral (
      select i.iv from ${ivDaily} i
      where i.symbol = u.symbol and i.date <= m.session_date - 7 and i.date > m.session_date - 14 and i.iv > 0
      order by i.date desc limit 1
    ) w on true
    where m.id = 1`;
  const {
    snapshot,
    rows: [ranked],
  } = await readWithSnapshot(read, [db.execute<IvRankingRow & Record<string, unknown>>(rows)]);
  return { snapshot, value: ranked.rows as IvRankingRow[] };
}
