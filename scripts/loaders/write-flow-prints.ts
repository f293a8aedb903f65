import { flowPrints } from "../../src/db/schema";
import { bulkInsert, updateOnConflict, type InsertRow } from "../db/bulk-insert";
import type { SqlBackend } from "../sql-endpoint/sql-backend";
import type { ClassifyContext, FlowPrint, TradeFile } from "./cboe-trades";

/** What identifies a vendor's print: a reload updates it instead of adding a duplicate. */
const UPSERT = updateOnConflict(["option_symbol", "executed_at", "sequence_number"], "where sequence_number is not null");

/**
 * What the database knows that the trade file does not: each contract's open interest in the
 * file's sessions (from `option_quotes` loaded for the same session) and which underlyings are
 * ETFs or indexes.
 */
export async function flowContext(
  backend: SqlBackend,
  file: TradeFile,
  pricing: Pick<ClassifyContext, "rate" | "dividendYield">,
): Promise<ClassifyContext> {
  const symbols = [...new Set(file.trades.map((t) => t.optionSymbol))];
  const sessions = [...new Set(file.trades.map((t) => t.sessionDate))];
  const underlyings = [...new Set(file.trades.map((t) => t.underlying))];
  const oi = await backend.typedQuery(
    `select option_symbol, open_interest from option_quotes
      where option_symbol = any($1::text[]) and open_interest is not null
        and (as_of at time zone 'America/New_York')::date = any($2::date[])`,
    [symbols, sessions],
  );
  const kinds = await backend.typedQuery(
    `select symbol from underlyings where symbol = any($1::text[]) and asset_type in ('etf', 'index')`,
    [underlyings],
  );
  return {
    ...pricing,
    openInterest: new Map(oi.rows.map((r) => [r.option_symbol as string, Number(r.open_interest)])),
    etfOrIndex: new Set(kinds.rows.map((r) => r.symbol as string)),
  };
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
    underlyingPrice: t.underlyingPrice,
    otmPct: p.otmPct,
    side: p.side,
    sentiment: p.sentiment,
    executionType: p.executionType,
    volume: p.volume,
    openInterest: p.openInterest,
    opening: p.opening,
    delta: p.delta,
    iv: p.iv,
    isEtfOrIndex: p.isEtfOrIndex,
    printClass: p.printClass,
    exchangeId: t.exchangeId,
    sequenceNumber: t.sequenceNumber,
    tradeConditionId: t.conditionId,
  };
}

/**
 * Upserts classified prints by (contract, execution time, sequence number): loading the same file
 * twice changes nothing. The market snapshot version stays: no cache is keyed on flow data.
 */
export async function writeFlowPrints(backend: SqlBackend, prints: readonly FlowPrint[]): Promise<number> {
  return bulkInsert(backend, flowPrints, prints.map(flowRow), UPSERT);
}
