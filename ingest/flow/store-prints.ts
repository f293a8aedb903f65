import { flowPrints } from "../../src/db/schema";
import { copyInsert, updateOnConflict, type InsertRow } from "../db/bulk-insert";
import type { CopyRows, TypedQuery } from "../db/database";
import type { OptionTrade } from "../events";
import type { ClassifyContext, FlowPrint } from "./classify-trades";

/** What identifies a vendor's print: a reload updates it instead of adding a duplicate. */
const UPSERT = updateOnConflict(["option_symbol", "executed_at", "sequence_number", "session_date"], "where sequence_number is not null");

/**
 * What the database knows that the trades do not: each contract's stored quote (open interest and
 * IV, with the ET session it is of), the stored equity quote of each underlying where it is of one
 * of the trades' sessions, which underlyings are ETFs or indexes, and each contract's session
 * volume stored before its first trade here (the running volume a stream continues; a reload of
 * the same trades finds none before them).
 */
export async function flowContext(
  query: TypedQuery,
  trades: readonly OptionTrade[],
  pricing: Pick<ClassifyContext, "rate" | "dividendYield" | "dividendYields">,
): Promise<ClassifyContext> {
  const symbols = [...new Set(trades.map((t) => t.optionSymbol))];
  const sessions = [...new Set(trades.map((t) => t.sessionDate))];
  const underlyings = [...new Set(trades.map((t) => t.underlying))];
  const quotes = await query(
    `select option_symbol, open_interest, iv, delta, (as_of at time zone 'America/New_York')::date::text as session_date
       from option_quotes where option_symbol = any($1::text[]) and as_of is not null`,
    [symbols],
  );
  const spots = await query(
    `select symbol, price, (as_of at time zone 'America/New_York')::date::text as session_date from equity_quotes
      where symbol = any($1::text[]) and (as_of at time zone 'America/New_York')::date = any($2::date[])`,
    [underlyings, sessions],
  );
  const kinds = await query(`select symbol from underlyings where symbol = any($1::text[]) and asset_type in ('etf', 'index')`, [
    underlyings,
  ]);
  // Per contract, a range of its own session's prints (flow_prints_contract_session_idx): a join
  // over the batch made the planner scan every stored print once the table held millions.
  const volumes = await query(
    `select b.symbol, b.session::text as session_date, v.volume
       from unnest($1::text[], $2::date[], $3::timestamptz[], $4::int8[]) as b(symbol, session, at, seq),
       lateral (select max(f.volume) as volume from flow_prints f
                 where f.option_symbol = b.symbol and f.session_date = b.session and f.executed_at <= b.at
                   and (f.executed_at, coalesce(f.sequence_number, -1)) < (b.at, b.seq)) v
      where v.volume is not null`,
    firstTrades(trades, (t) => t.optionSymbol),
  );
  const earlier = await query(
    `select b.symbol, b.session::text as session_date, p.underlying_price
       from unnest($1::text[], $2::date[], $3::timestamptz[], $4::int8[]) as b(symbol, session, at, seq),
       lateral (select f.underlying_price from flow_prints f
                 where f.ticker = b.symbol and f.session_date = b.session and f.underlying_price > 0 and f.executed_at <= b.at
                   and (f.executed_at, coalesce(f.sequence_number, -1)) < (b.at, b.seq)
                 -- NULLS LAST as the index is ordered (executed_at is never null): the scan then stops at the first row.
                 order by f.executed_at desc nulls last, f.sequence_number desc limit 1) p`,
    firstTrades(trades, (t) => t.underlying),
  );
  const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...pricing,
    quotes: new Map(
      quotes.rows.map((r) => [
        r.option_symbol as string,
        { sessionDate: r.session_date as string, openInterest: orNull(r.open_interest), iv: orNull(r.iv), delta: orNull(r.delta) },
      ]),
    ),
    spots: new Map(spots.rows.map((r) => [`${r.symbol as string}|${r.session_date as string}`, Number(r.price)])),
    earlierSpots: new Map(earlier.rows.map((r) => [`${r.symbol as string}|${r.session_date as string}`, Number(r.underlying_price)])),
    etfOrIndex: new Set(kinds.rows.map((r) => r.symbol as string)),
    volumesBefore: new Map(volumes.rows.map((r) => [`${r.session_date as string}|${r.symbol as string}`, Number(r.volume)])),
  };
}

/**
 * The first trade in each session of each contract or underlying (`of`), in (time, sequence)
 * order, as the columns (key, session, time, sequence) a statement unnests.
 */
function firstTrades(trades: readonly OptionTrade[], of: (t: OptionTrade) => string) {
  const first = new Map<string, OptionTrade>();
  for (const t of trades) {
    const key = `${t.sessionDate}|${of(t)}`;
    const seen = first.get(key);
    if (!seen || (t.executedAt.getTime() - seen.executedAt.getTime() || t.sequenceNumber - seen.sequenceNumber) < 0) first.set(key, t);
  }
  const starts = [...first.values()];
  return [
    starts.map(of),
    starts.map((t) => t.sessionDate),
    starts.map((t) => t.executedAt.toISOString()),
    starts.map((t) => t.sequenceNumber),
  ];
}

/** One `flow_prints` row, with the vendor's identity of the print. */
function flowRow(p: FlowPrint): InsertRow<typeof flowPrints> {
  const t = p.trade;
  return {
    executedAt: t.executedAt.toISOString(),
    sessionDate: t.sessionDate,
    ticker: t.underlying,
    optionSymbol: t.optionSymbol,
    optionType: t.contract.side,
    strike: t.contract.strike,
    expiration: t.contract.expiration,
    price: t.price,
    size: t.size,
    premium: p.premium,
    bid: t.bid,
    ask: t.ask,
    underlyingPrice: p.underlyingPrice,
    otmPct: p.otmPct,
    side: p.side,
    sentiment: p.sentiment,
    executionType: p.executionType,
    volume: p.volume,
    openInterest: p.openInterest,
    openInterestSource: p.openInterestSource,
    opening: p.opening,
    delta: p.delta,
    iv: p.iv,
    ivSource: p.ivSource,
    isEtfOrIndex: p.isEtfOrIndex,
    printClass: p.printClass,
    exchangeId: t.exchangeId,
    sequenceNumber: t.sequenceNumber,
    tradeConditionId: t.conditionId ?? null,
  };
}

/**
 * Upserts classified prints by (contract, execution time, sequence number): loading the same file
 * twice changes nothing. The market snapshot version stays: no cache is keyed on flow data.
 */
export async function writeFlowPrints(query: TypedQuery, copy: CopyRows, prints: readonly FlowPrint[]): Promise<number> {
  return copyInsert(query, copy, flowPrints, prints.map(flowRow), UPSERT);
}
