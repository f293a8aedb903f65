import type { CbboRecord, Cmbp1Record, DbnRecord, DefinitionRecord, StatisticRecord, SymbolMappingRecord } from "../../ingest/dbn";
import type { MarketEvent } from "../../ingest/events";
import { OpraEventReader } from "../../ingest/sources/opra/from-dbn";
import { OpraInstruments } from "../../ingest/sources/opra/instruments";
import { formatOcc, formatOsi, type OccContract } from "../../src/domain/occ";
import { cbbo1m, definitionV3, statisticV3, symbolMapping, tcbbo } from "./dbn-fixtures";

/** Nanoseconds since the epoch of an instant. */
export const nanos = (at: string | Date | number): bigint => BigInt(new Date(at).getTime()) * 1_000_000n;

/** Records as one source of a feed (`consumeFeed`'s). */
export async function* feedOf(records: readonly DbnRecord[]): AsyncGenerator<DbnRecord, void, undefined> {
  yield* records;
}

/**
 * OPRA records of made-up contracts, built from the hand-written fixtures' records and read by the
 * real OPRA reader: tests state contracts and prices, the records carry them as the feed would.
 */
export class OpraStream {
  readonly reader: OpraEventReader;
  /** Every record made, in order: what a gateway or a file would carry. */
  readonly records: DbnRecord[] = [];
  private readonly ids = new Map<string, number>();
  /** Each instrument id's raw (OSI) symbol: what a gateway's symbol mappings say. */
  readonly rawSymbols = new Map<number, string>();

  constructor(indexes: string[] = []) {
    this.reader = new OpraEventReader(new OpraInstruments(new Set(indexes)));
  }

  /** The contract's instrument id; a contract not yet defined is defined first (underlying: its root). */
  private id(c: OccContract): number {
    const symbol = formatOcc(c);
    const id = this.ids.get(symbol);
    if (id !== undefined) return id;
    this.define(c, c.root, 0);
    return this.ids.get(symbol)!;
  }

  private event<E extends MarketEvent>(record: Parameters<OpraEventReader["read"]>[0]): E {
    this.records.push(record);
    const event = this.reader.read(record);
    if (!event) throw new Error(`no event from ${record.kind}`);
    return event as E;
  }

  define(c: OccContract, underlying: string, at: string | Date | number, action: "A" | "D" = "A") {
    const symbol = formatOcc(c);
    if (!this.ids.has(symbol)) {
      this.ids.set(symbol, 1_000 + this.ids.size);
      this.rawSymbols.set(this.ids.get(symbol)!, formatOsi(c));
    }
    const record: DefinitionRecord = {
      ...definitionV3().record,
      instrumentId: this.ids.get(symbol)!,
      tsRecv: nanos(at),
      tsEvent: nanos(at),
      rawSymbol: formatOsi(c),
      underlying,
      instrumentClass: c.side === "call" ? "C" : "P",
      strikePrice: c.strike,
      securityUpdateAction: action,
    };
    return this.event<Extract<MarketEvent, { kind: "listed" | "delisted" }>>(record);
  }

  /** A live session's symbol mapping of the contract, received at `at`: its id is learnt without a definition (nothing is written). */
  map(c: OccContract, at: string | Date | number): void {
    const symbol = formatOcc(c);
    if (!this.ids.has(symbol)) this.ids.set(symbol, 1_000 + this.ids.size);
    const record: SymbolMappingRecord = {
      ...symbolMapping().record,
      instrumentId: this.ids.get(symbol)!,
      tsEvent: nanos(at),
      stypeOutSymbol: formatOsi(c),
    };
    this.records.push(record);
    this.reader.read(record);
  }

  /** A tcbbo trade record of the contract as given (times, size, venue…), not read: one the reader may refuse. */
  rawTrade(c: OccContract, over: Partial<Cmbp1Record>): Cmbp1Record {
    const record: Cmbp1Record = { ...tcbbo().record, instrumentId: this.id(c), ...over };
    this.records.push(record);
    return record;
  }

  /** An open-interest statistic of the contract received at `at`, not read: one the reader may refuse. */
  rawOpenInterest(c: OccContract, at: string | Date, quantity: number): StatisticRecord {
    const record: StatisticRecord = { ...statisticV3().record, instrumentId: this.id(c), tsRecv: nanos(at), quantity };
    this.records.push(record);
    return record;
  }

  /** A cbbo-1m sample at `at` (the minute's end): bid, ask and the session's last trade price. */
  quote(c: OccContract, at: string | Date, bid: number | null, ask: number | null, last: number | null = null) {
    const base = cbbo1m().record;
    const record: CbboRecord = {
      ...base,
      instrumentId: this.id(c),
      tsRecv: nanos(at),
      tsEvent: nanos(at),
      price: last,
      levels: [{ ...base.levels[0], bidPx: bid, askPx: ask }],
    };
    return this.event<Extract<MarketEvent, { kind: "quote" }>>(record);
  }

  /** A tcbbo trade executed at `at` and received 1 ms later, with the NBBO before it. */
  trade(c: OccContract, at: string | Date, price: number, size: number, bid: number, ask: number) {
    const base = tcbbo().record;
    const record: Cmbp1Record = {
      ...base,
      instrumentId: this.id(c),
      tsEvent: nanos(at),
      tsRecv: nanos(at) + 1_000_000n,
      price,
      size,
      levels: [{ ...base.levels[0], bidPx: bid, askPx: ask }],
    };
    return this.event<Extract<MarketEvent, { kind: "trade" }>>(record);
  }

  /** An open-interest statistic received at `at` (for the session on or after that ET date). */
  openInterest(c: OccContract, at: string | Date, quantity: number) {
    const record: StatisticRecord = { ...statisticV3().record, instrumentId: this.id(c), tsRecv: nanos(at), tsEvent: nanos(at), quantity };
    return this.event<Extract<MarketEvent, { kind: "open-interest" }>>(record);
  }
}
