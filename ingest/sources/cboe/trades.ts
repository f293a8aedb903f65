import { settlementOf } from "../../../src/domain/market-clock";
import { parse, type InfoRecord } from "csv-parse/sync";
import type { PrintClass } from "../../../src/analytics/flow";
import { isSession, newYorkInstant, toDate } from "../../../src/domain/calendar";
import { formatOcc, parseOcc, type OccContract } from "../../../src/domain/occ";
import type { OptionTrade, TradeEvent } from "../../events";

/**
 * Cboe DataShop "Option Trades" CSV: one trade per row with the NBBO at trade time, then
 * `number_of_exchanges` groups of `exchange,bid_size,bid,ask_size,ask` (so rows vary in length).
 * Files bought with the Calcs add-on also carry `trade_iv` and `trade_delta`. Times are US/Eastern.
 */
export const COLUMNS = [
  "underlying_symbol",
  "quote_datetime",
  "sequence_number",
  "root",
  "expiration",
  "strike",
  "option_type",
  "exchange_id",
  "trade_size",
  "trade_price",
  "trade_condition_id",
  "canceled_trade_condition_id",
  "best_bid",
  "best_ask",
  "underlying_bid",
  "underlying_ask",
  "number_of_exchanges",
] as const;
const OPTIONAL = ["trade_iv", "trade_delta"] as const;
type Column = (typeof COLUMNS)[number] | (typeof OPTIONAL)[number];

/**
 * `trade_condition_id` values of multi-leg / complex prints (mostly between bid and ask, up to
 * 23k lots in the 2016 VIX sample). Cboe's numeric condition table was not retrievable; the ids
 * come from the reference-data README and ANALYTICS.md §4.4.
 */
export const COMPLEX_CONDITIONS: ReadonlySet<number> = new Set([35, 106]);

/** A row of the file as an option trade; the underlying is named without Cboe's `^` index prefix. */
export interface CboeTrade extends OptionTrade {
  line: number;
  conditionId: number;
  /** 0 normal, 1 a trade later canceled, 2 the cancel message itself. */
  canceledConditionId: number;
}

export interface TradeFile {
  trades: CboeTrade[];
  rejected: { row: number; reason: string }[];
}

const DATETIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SYMBOL = /^\^?[A-Z][A-Z0-9.]{0,9}$/;
const ROOT = /^[A-Z0-9.]{1,6}$/;

function isoDate(text: string): string | null {
  return DATE.test(text) && toDate(text).toISOString().slice(0, 10) === text ? text : null;
}

function number(cells: Record<string, string>, field: string, { min = 0, integer = false, max = Infinity } = {}): number {
  const text = (cells[field] ?? "").trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    const range = max === Infinity ? `≥ ${min}` : `in [${min}, ${max}]`;
    throw new Error(`${field} is not ${integer ? "an integer" : "a number"} ${range}: '${text}'`);
  }
  return value;
}

/** Reads the header into column positions; throws when a required column is missing. */
function headerIndex(header: string[]): Map<Column, number> {
  const index = new Map<Column, number>();
  header.forEach((name, i) => {
    const n = name.trim() as Column;
    if (((COLUMNS as readonly string[]).includes(n) || (OPTIONAL as readonly string[]).includes(n)) && !index.has(n)) index.set(n, i);
  });
  const missing = COLUMNS.filter((c) => !index.has(c));
  if (missing.length) throw new Error(`not a Cboe DataShop option trades file: missing column(s) ${missing.join(", ")}`);
  const venuesAt = index.get("number_of_exchanges") as number;
  const late = [...index].filter(([, i]) => i > venuesAt).map(([name]) => name);
  if (late.length) throw new Error(`not a Cboe DataShop option trades file: ${late.join(", ")} after number_of_exchanges`);
  return index;
}

function parseRow(cells: string[], index: Map<Column, number>, line: number): CboeTrade {
  const venuesAt = index.get("number_of_exchanges") as number;
  if (cells.length <= venuesAt) throw new Error(`expected at least ${venuesAt + 1} columns, found ${cells.length}`);
  const named: Record<string, string> = {};
  for (const [name, i] of index) named[name] = cells[i] ?? "";
  // Files since June 2022 leave the exchange count and the per-venue quotes empty.
  const venues = named.number_of_exchanges?.trim() === "" ? 0 : number(named, "number_of_exchanges", { integer: true, max: 99 });
  const expected = venuesAt + 1 + 5 * venues;
  if (cells.length !== expected) throw new Error(`expected ${expected} columns for ${venues} exchange quotes, found ${cells.length}`);
  for (let v = 0; v < venues; v++) {
    const group = cells.slice(venuesAt + 1 + 5 * v, venuesAt + 6 + 5 * v);
    if (group.some((c) => c.trim() === "" || !(Number(c) >= 0)))
      throw new Error(`exchange quote ${v + 1} is not numeric: '${group.join(",")}'`);
  }

  const symbol = (named.underlying_symbol ?? "").trim();
  if (!SYMBOL.test(symbol)) throw new Error(`bad underlying_symbol '${symbol}'`);
  const time = DATETIME.exec((named.quote_datetime ?? "").trim());
  const sessionDate = time ? isoDate(time[1] as string) : null;
  if (!time || !sessionDate || Number(time[2]) > 23 || Number(time[3]) > 59 || Number(time[4]) > 59)
    throw new Error(`bad quote_datetime '${named.quote_datetime}'`);
  if (!isSession(sessionDate)) throw new Error(`${sessionDate} is not a trading session`);
  const ms = Number((time[5] ?? "").padEnd(3, "0").slice(0, 3));
  const executedAt = newYorkInstant(sessionDate, Number(time[2]), Number(time[3]), Number(time[4]), ms);

  const root = (named.root ?? "").trim();
  if (!ROOT.test(root)) throw new Error(`bad root '${root}'`);
  const expiration = isoDate((named.expiration ?? "").trim());
  if (!expiration) throw new Error(`bad expiration '${named.expiration}'`);
  if (expiration < sessionDate) throw new Error(`traded on ${sessionDate}, after its expiration ${expiration}`);
  const strike = number(named, "strike", { min: 0.001, max: 99_999.999 });
  const type = (named.option_type ?? "").trim();
  if (type !== "C" && type !== "P") throw new Error(`option_type is not C or P: '${type}'`);
  const contract: OccContract = { root, expiration, side: type === "C" ? "call" : "put", strike };
  const optionSymbol = formatOcc(contract);
  if (!parseOcc(optionSymbol)) throw new Error(`no OCC symbol for ${root} ${expiration} ${type} ${strike}`);

  const bid = number(named, "best_bid");
  const ask = number(named, "best_ask");
  const underlyingBid = number(named, "underlying_bid");
  const underlyingAsk = number(named, "underlying_ask");
  const vendorIv = index.has("trade_iv") ? number(named, "trade_iv", { max: 100 }) : 0;
  const vendorDelta = index.has("trade_delta") ? number(named, "trade_delta", { min: -1, max: 1 }) : 0;
  const isIndex = symbol.startsWith("^");
  const underlying = isIndex ? symbol.slice(1) : symbol;
  const conditionId = number(named, "trade_condition_id", { integer: true, max: 32_767 });
  const canceledConditionId = number(named, "canceled_trade_condition_id", { integer: true, max: 32_767 });
  return {
    line,
    underlying,
    isIndex,
    contract,
    optionSymbol,
    settlement: settlementOf(root, underlying, isIndex),
    executedAt,
    sessionDate,
    sequenceNumber: number(named, "sequence_number", { integer: true, max: Number.MAX_SAFE_INTEGER }),
    exchangeId: number(named, "exchange_id", { integer: true, max: 32_767 }),
    size: number(named, "trade_size", { min: 1, integer: true, max: 2_147_483_647 }),
    price: number(named, "trade_price", { min: 0.0001 }),
    conditionId,
    canceledConditionId,
    printClass: printClassOf({ conditionId, canceledConditionId }),
    bid: ask > 0 ? bid : null,
    ask: ask > 0 ? ask : null,
    underlyingPrice: underlyingBid > 0 && underlyingAsk >= underlyingBid ? (underlyingBid + underlyingAsk) / 2 : null,
    vendorGreeks: vendorIv > 0 ? { iv: vendorIv, delta: vendorDelta } : null,
  };
}

/**
 * Parses a trades file. Malformed rows are reported with their line number and reason, never
 * silently dropped; a repeated trade (same contract, time and sequence number) is reported too.
 */
export function parseCboeTrades(text: string): TradeFile {
  // The format never quotes, so quoting is off: a stray quote is then one bad field, not a parse
  // error that swallows the lines after it.
  const options = { relax_column_count: true, skip_empty_lines: false, bom: true, quote: false, info: true };
  // With `info`, each record comes as {record, info}; the library's types do not say so.
  const records = parse(text, options) as unknown as { record: string[]; info: InfoRecord }[];
  const index = headerIndex(records[0]?.record ?? []);
  const trades: CboeTrade[] = [];
  const rejected: TradeFile["rejected"] = [];
  const seen = new Map<string, number>();
  for (const { record: cells, info } of records.slice(1)) {
    const line = info.lines;
    if (cells.length === 1 && (cells[0] ?? "").trim() === "") continue;
    try {
      const trade = parseRow(cells, index, line);
      const key = `${trade.optionSymbol}|${trade.executedAt.getTime()}|${trade.sequenceNumber}`;
      const first = seen.get(key);
      if (first !== undefined) throw new Error(`duplicate of line ${first} (same contract, time and sequence number)`);
      seen.set(key, line);
      trades.push(trade);
    } catch (err) {
      rejected.push({ row: line, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  return { trades, rejected };
}

/**
 * The file as the pipeline's trade events, in time order: each trade received at its execution
 * time (the file has no receive time), so the trades of one millisecond form one receive time.
 */
export function tradeEvents(file: TradeFile): (CboeTrade & TradeEvent)[] {
  return [...file.trades]
    .sort((a, b) => a.executedAt.getTime() - b.executedAt.getTime() || a.sequenceNumber - b.sequenceNumber)
    .map((t) => ({
      ...t,
      kind: "trade" as const,
      position: { schema: "tcbbo" as const, tsRecv: BigInt(t.executedAt.getTime()) * 1_000_000n },
    }));
}

export function printClassOf(t: Pick<CboeTrade, "conditionId" | "canceledConditionId">): PrintClass {
  if (t.canceledConditionId !== 0) return "canceled";
  return COMPLEX_CONDITIONS.has(t.conditionId) ? "complex" : "regular";
}
