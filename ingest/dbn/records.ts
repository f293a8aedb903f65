// Decoded DBN records: one shape whether they came from binary DBN or JSON lines.
// Field names follow databento/dbn rust/dbn/src/record.rs in camelCase; prices are numbers
// (null for UNDEF_PRICE), timestamps bigint nanoseconds since the UNIX epoch.

/** The record header common to every record (`RecordHeader`). */
export interface RecordHeaderFields {
  rtype: number;
  publisherId: number;
  instrumentId: number;
  tsEvent: bigint;
  /** Present when the metadata says `ts_out`: the gateway's send time. */
  tsOut?: bigint;
  /** The symbol a JSON record carries when the vendor mapped symbols (`map_symbols`): its request's symbol for the instrument. */
  symbol?: string;
}

/** A best bid and offer consolidated across venues (`ConsolidatedBidAskPair`). */
export interface ConsolidatedLevel {
  bidPx: number | null;
  askPx: number | null;
  bidSz: number;
  askSz: number;
  /** Publisher of the venue holding the best bid. */
  bidPb: number;
  askPb: number;
}

/** `InstrumentDefMsg` (schema `definition`): the fields an options chain needs. */
export interface DefinitionRecord extends RecordHeaderFields {
  kind: "definition";
  tsRecv: bigint;
  rawSymbol: string;
  /** Root of the underlying, e.g. "AAPL". */
  underlying: string;
  asset: string;
  /** 'C' call, 'P' put, 'K' stock, … (`InstrumentClass`). */
  instrumentClass: string;
  strikePrice: number | null;
  strikePriceCurrency: string;
  expiration: bigint | null;
  activation: bigint | null;
  minPriceIncrement: number | null;
  displayFactor: number | null;
  highLimitPrice: number | null;
  lowLimitPrice: number | null;
  unitOfMeasureQty: number | null;
  contractMultiplier: number;
  underlyingId: number;
  rawInstrumentId: bigint;
  currency: string;
  exchange: string;
  cfi: string;
  securityType: string;
  /** 'A' add, 'M' modify, 'D' delete (`SecurityUpdateAction`). */
  securityUpdateAction: string;
  channelId: number;
  maturityYear: number;
  maturityMonth: number;
  maturityDay: number;
}

/** `StatMsg` (schema `statistics`). */
export interface StatisticRecord extends RecordHeaderFields {
  kind: "statistic";
  tsRecv: bigint;
  tsRef: bigint | null;
  price: number | null;
  /** Null for `UNDEF_STAT_QUANTITY` (i32::MAX in v2, i64::MAX in v3). */
  quantity: number | null;
  sequence: number;
  tsInDelta: number;
  /** `StatType`: 9 is open interest (see STAT_TYPE). */
  statType: number;
  channelId: number;
  /** 1 new, 2 delete (`StatUpdateAction`). */
  updateAction: number;
  statFlags: number;
}

/** `CbboMsg` (schemas `cbbo-1s`, `cbbo-1m`): the consolidated BBO sampled at the interval end, and the last trade. */
export interface CbboRecord extends RecordHeaderFields {
  kind: "cbbo";
  tsRecv: bigint;
  /** Last trade price; null if no trade in the session. */
  price: number | null;
  size: number;
  side: string | null;
  flags: number;
  levels: [ConsolidatedLevel];
}

/** `Cmbp1Msg` (schemas `tcbbo` and `cmbp-1`): for tcbbo a trade and the consolidated BBO just before it. */
export interface Cmbp1Record extends RecordHeaderFields {
  kind: "cmbp1";
  tsRecv: bigint;
  price: number | null;
  size: number;
  /** 'T' trade, 'A' add, 'C' cancel, … (`Action`). */
  action: string | null;
  /** 'A' sell aggressor, 'B' buy aggressor, 'N' none (`Side`). */
  side: string | null;
  flags: number;
  tsInDelta: number;
  levels: [ConsolidatedLevel];
}

/** `SymbolMappingMsg`. */
export interface SymbolMappingRecord extends RecordHeaderFields {
  kind: "symbol-mapping";
  stypeIn: number;
  stypeInSymbol: string;
  stypeOut: number;
  stypeOutSymbol: string;
  startTs: bigint | null;
  endTs: bigint | null;
}

/** `SystemMsg`: heartbeats (code 0) and other gateway notices. */
export interface SystemRecord extends RecordHeaderFields {
  kind: "system";
  msg: string;
  code: number;
}

/** `ErrorMsg`. */
export interface ErrorRecord extends RecordHeaderFields {
  kind: "error";
  err: string;
  code: number;
  isLast: number;
}

export type DbnRecord = DefinitionRecord | StatisticRecord | CbboRecord | Cmbp1Record | SymbolMappingRecord | SystemRecord | ErrorRecord;
