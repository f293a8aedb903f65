import { equityQuotes, flowPrints, optionQuotes, underlyings } from "../../src/db/schema";
import { FLOW_WRITERS_LOCK } from "../../src/market/feed-order";
import { arrayParams, copyInsert, updateOnConflict, type InsertRow } from "../db/bulk-insert";
import type { CopyRows, TypedQuery } from "../db/database";
import { columnNames, queryRows, selectList, selectRows, type Row, type Selected, sqlNames } from "../db/rows";
import type { OptionTrade } from "../events";
import type { ClassifyContext, FlowPrint } from "./classify-trades";

const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);
const [EQUITY_QUOTES, E] = sqlNames(equityQuotes);
const [FLOW_PRINTS, F] = sqlNames(flowPrints);
const U = columnNames(underlyings);

/** What identifies a vendor's print: a reload updates it instead of adding a duplicate. */
const UPSERT = updateOnConflict([F.optionSymbol, F.executedAt, F.sequenceNumber, F.sessionDate], `where ${F.sequenceNumber} is not null`);

/** The asset types whose underlyings are ETFs or indexes. */
const ETF_OR_INDEX: readonly Row<typeof underlyings>["assetType"][] = ["etf", "index"];

/** The New York day of a timestamp, as text. */
const dayOf = (at: string) => `(${at} at time zone 'America/New_York')::date::text`;

/** A row of a trade's contract or underlying (`symbol`) in its session (`session`), as `firstTrades` unnests them. */
type FirstTrade = { symbol: string; session: string };

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
  const tickers = [...new Set(trades.map((t) => t.underlying))];
  const quotes = await queryRows<Selected<typeof optionQuotes, "optionSymbol" | "openInterest" | "iv" | "delta"> & { day: string }>(
    query,
    `select ${selectList(optionQuotes, ["optionSymbol", "openInterest", "iv", "delta"])}, ${dayOf(Q.asOf)} as "day"
       from ${OPTION_QUOTES} where ${Q.optionSymbol} = any($1::text[]) and ${Q.asOf} is not null`,
    [symbols],
  );
  const spots = await queryRows<Selected<typeof equityQuotes, "symbol" | "price"> & { day: string }>(
    query,
    `select ${selectList(equityQuotes, ["symbol", "price"])}, ${dayOf(E.asOf)} as "day" from ${EQUITY_QUOTES}
      where ${E.symbol} = any($1::text[]) and (${E.asOf} at time zone 'America/New_York')::date = any($2::date[])`,
    [tickers, sessions],
  );
  const kinds = await selectRows(
    query,
    underlyings,
    ["symbol"],
    `where ${U.symbol} = any($1::text[]) and ${U.assetType} in (${ETF_OR_INDEX.map((t) => `'${t}'`).join(", ")})`,
    [tickers],
  );
  // Per contract, a range of its own session's prints (flow_prints_contract_session_idx): a join
  // over the batch made the planner scan every stored print once the table held millions.
  const volumes = await queryRows<FirstTrade & Selected<typeof flowPrints, "volume">>(
    query,
    `select b.symbol, b.session::text as session, ${selectList(flowPrints, ["volume"], "v")}
       from unnest(${arrayParams(flowPrints, ["optionSymbol", "sessionDate", "executedAt", "sequenceNumber"])}) as b(symbol, session, at, seq),
       lateral (select max(f.${F.volume}) as ${F.volume} from ${FLOW_PRINTS} f
                 where f.${F.optionSymbol} = b.symbol and f.${F.sessionDate} = b.session and f.${F.executedAt} <= b.at
                   and (f.${F.executedAt}, coalesce(f.${F.sequenceNumber}, -1)) < (b.at, b.seq)) v
      where v.${F.volume} is not null`,
    firstTrades(trades, (t) => t.optionSymbol),
  );
  const earlier = await queryRows<FirstTrade & Selected<typeof flowPrints, "underlyingPrice">>(
    query,
    `select b.symbol, b.session::text as session, ${selectList(flowPrints, ["underlyingPrice"], "p")}
       from unnest(${arrayParams(flowPrints, ["ticker", "sessionDate", "executedAt", "sequenceNumber"])}) as b(symbol, session, at, seq),
       lateral (select f.${F.underlyingPrice} from ${FLOW_PRINTS} f
                 where f.${F.ticker} = b.symbol and f.${F.sessionDate} = b.session and f.${F.underlyingPrice} > 0 and f.${F.executedAt} <= b.at
                   and (f.${F.executedAt}, coalesce(f.${F.sequenceNumber}, -1)) < (b.at, b.seq)
                 -- NULLS LAST as the index is ordered (executed_at is never null): the scan then stops at the first row.
                 order by f.${F.executedAt} desc nulls last, f.${F.sequenceNumber} desc limit 1) p`,
    firstTrades(trades, (t) => t.underlying),
  );
  return {
    ...pricing,
    quotes: new Map(quotes.map((r) => [r.optionSymbol, { sessionDate: r.day, openInterest: r.openInterest, iv: r.iv, delta: r.delta }])),
    spots: new Map(spots.map((r) => [`${r.symbol}|${r.day}`, r.price])),
    earlierSpots: new Map(earlier.map((r) => [`${r.symbol}|${r.session}`, r.underlyingPrice])),
    etfOrIndex: new Set(kinds.map((r) => r.symbol)),
    volumesBefore: new Map(volumes.map((r) => [`${r.session}|${r.symbol}`, r.volume])),
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
  // Ids in commit order for the streams (src/market/feed-order.ts): held to this transaction's end.
  await query(`select pg_advisory_xact_lock(${FLOW_WRITERS_LOCK})`);
  return copyInsert(query, copy, flowPrints, prints.map(flowRow), UPSERT);
}
