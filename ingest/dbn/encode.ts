// DBN v3 encoding of the records this pipeline reads — what the generator writes as a vendor
// stream and the local gateway serves. The layouts are the decoder's (binary-records.ts); a
// round trip through `DbnDecoder` checks every field (test/ingest/dbn-encode.unit.test.ts).
import { DEFINITION_V3 } from "./binary-records";
import { SCHEMAS, STYPES } from "./enums";
import { FIXED_PRICE_SCALE, UNDEF_PRICE, UNDEF_STAT_QUANTITY_V3, UNDEF_TIMESTAMP } from "./fixed-point";
import type { Metadata, SymbolMapping } from "./metadata";
import type { ConsolidatedLevel, DbnRecord } from "./records";

const VERSION = 3;
const SYMBOL_CSTR_LEN = 71;
const utf8 = new TextEncoder();

/** A price as fixed-point units (1e-9), `UNDEF_PRICE` for null; rounded to the unit. */
export function numberToPrice(value: number | null): bigint {
  if (value === null) return UNDEF_PRICE;
  const whole = Math.trunc(value);
  return BigInt(whole) * FIXED_PRICE_SCALE + BigInt(Math.round((value - whole) * 1e9));
}

/** Little-endian writes into one record's bytes. */
class Writer {
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  constructor(length: number) {
    this.bytes = new Uint8Array(length);
    this.view = new DataView(this.bytes.buffer);
  }
  u8(at: number, v: number) {
    this.bytes[at] = v;
  }
  u16(at: number, v: number) {
    this.view.setUint16(at, v, true);
  }
  u32(at: number, v: number) {
    this.view.setUint32(at, v, true);
  }
  i32(at: number, v: number) {
    this.view.setInt32(at, v, true);
  }
  u64(at: number, v: bigint) {
    this.view.setBigUint64(at, v, true);
  }
  i64(at: number, v: bigint) {
    this.view.setBigInt64(at, v, true);
  }
  px(at: number, v: number | null) {
    this.i64(at, numberToPrice(v));
  }
  ts(at: number, v: bigint | null) {
    this.u64(at, v ?? UNDEF_TIMESTAMP);
  }
  char(at: number, v: string | null) {
    this.bytes[at] = v ? v.charCodeAt(0) : 0;
  }
  /** A NUL-padded C string of at most `width - 1` bytes. */
  str(at: number, width: number, v: string) {
    const encoded = utf8.encode(v);
    if (encoded.length >= width) throw new RangeError(`'${v}' does not fit a ${width}-byte C string`);
    this.bytes.set(encoded, at);
  }
}

/** Bytes of each record kind in DBN v3, without `ts_out`. */
const LENGTH: Record<DbnRecord["kind"], number> = {
  definition: 520,
  statistic: 80,
  cbbo: 80,
  cmbp1: 80,
  "symbol-mapping": 176,
  system: 320,
  error: 320,
};

/** One record as DBN v3 bytes (with a trailing `ts_out` when the stream has them). */
export function encodeRecord(record: DbnRecord, tsOut = false): Uint8Array {
  const length = LENGTH[record.kind] + (tsOut ? 8 : 0);
  const w = new Writer(length);
  w.u8(0, length / 4);
  w.u8(1, record.rtype);
  w.u16(2, record.publisherId);
  w.u32(4, record.instrumentId);
  w.u64(8, record.tsEvent);
  if (tsOut) w.u64(length - 8, record.tsOut ?? 0n);
  const level = ([l]: [ConsolidatedLevel]) => {
    w.px(48, l.bidPx);
    w.px(56, l.askPx);
    w.u32(64, l.bidSz);
    w.u32(68, l.askSz);
    w.u16(72, l.bidPb);
    w.u16(76, l.askPb);
  };
  switch (record.kind) {
    case "definition": {
      const at = DEFINITION_V3;
      w.u64(16, record.tsRecv);
      w.px(24, record.minPriceIncrement);
      w.px(32, record.displayFactor);
      w.ts(40, record.expiration);
      w.ts(48, record.activation);
      w.px(56, record.highLimitPrice);
      w.px(64, record.lowLimitPrice);
      w.px(at.unitOfMeasureQty, record.unitOfMeasureQty);
      w.px(at.strikePrice, record.strikePrice);
      w.u64(at.rawInstrumentId, record.rawInstrumentId);
      w.u32(at.underlyingId, record.underlyingId);
      w.i32(at.contractMultiplier, record.contractMultiplier);
      w.u16(at.maturityYear, record.maturityYear);
      w.u16(at.channelId, record.channelId);
      w.str(at.currency, 4, record.currency);
      w.str(at.rawSymbol, SYMBOL_CSTR_LEN, record.rawSymbol);
      w.str(at.exchange, 5, record.exchange);
      w.str(at.asset, at.assetLength, record.asset);
      w.str(at.cfi, 7, record.cfi);
      w.str(at.securityType, 7, record.securityType);
      w.str(at.underlying, 21, record.underlying);
      w.str(at.strikePriceCurrency, 4, record.strikePriceCurrency);
      w.char(at.instrumentClass, record.instrumentClass);
      w.char(at.securityUpdateAction, record.securityUpdateAction);
      w.u8(at.maturityMonth, record.maturityMonth);
      w.u8(at.maturityDay, record.maturityDay);
      break;
    }
    case "statistic":
      w.u64(16, record.tsRecv);
      w.ts(24, record.tsRef);
      w.px(32, record.price);
      w.i64(40, record.quantity === null ? UNDEF_STAT_QUANTITY_V3 : BigInt(record.quantity));
      w.u32(48, record.sequence);
      w.i32(52, record.tsInDelta);
      w.u16(56, record.statType);
      w.u16(58, record.channelId);
      w.u8(60, record.updateAction);
      w.u8(61, record.statFlags);
      break;
    case "cbbo":
      w.px(16, record.price);
      w.u32(24, record.size);
      w.char(29, record.side);
      w.u8(30, record.flags);
      w.u64(32, record.tsRecv);
      level(record.levels);
      break;
    case "cmbp1":
      w.px(16, record.price);
      w.u32(24, record.size);
      w.char(28, record.action);
      w.char(29, record.side);
      w.u8(30, record.flags);
      w.u64(32, record.tsRecv);
      w.i32(40, record.tsInDelta);
      level(record.levels);
      break;
    case "symbol-mapping":
      w.u8(16, record.stypeIn);
      w.str(17, SYMBOL_CSTR_LEN, record.stypeInSymbol);
      w.u8(88, record.stypeOut);
      w.str(89, SYMBOL_CSTR_LEN, record.stypeOutSymbol);
      w.ts(160, record.startTs);
      w.ts(168, record.endTs);
      break;
    case "system":
      w.str(16, 303, record.msg);
      w.u8(319, record.code);
      break;
    case "error":
      w.str(16, 302, record.err);
      w.u8(318, record.code);
      w.u8(319, record.isLast);
      break;
  }
  return w.bytes;
}

/** What a stream's metadata header says; symbol lists are left empty, mappings optional (live streams and files with definitions carry none). */
export type MetadataFields = Pick<Metadata, "dataset" | "schema" | "start" | "end" | "stypeIn" | "stypeOut" | "tsOut"> & {
  mappings?: readonly SymbolMapping[];
};

/** The metadata header of a DBN v3 stream (prelude included). */
export function encodeMetadata(m: MetadataFields): Uint8Array {
  const mappings = m.mappings ?? [];
  const mappingBytes = mappings.reduce((n, mapping) => n + SYMBOL_CSTR_LEN + 4 + mapping.intervals.length * (8 + SYMBOL_CSTR_LEN), 0);
  // dataset 16, schema 2, start/end/limit 24, stype_in/out and ts_out 3, symbol_cstr_len 2,
  // reserved 53, schema_definition_length 4, then three empty symbol lists and the mappings (u32 counts).
  const fixed = 16 + 2 + 24 + 3 + 2 + 53 + 4 + 4 * 4;
  const w = new Writer(8 + fixed + mappingBytes);
  w.bytes.set(utf8.encode("DBN"), 0);
  w.u8(3, VERSION);
  w.u32(4, fixed + mappingBytes);
  w.str(8, 16, m.dataset);
  w.u16(24, m.schema === null ? 0xffff : SCHEMAS.indexOf(m.schema));
  w.u64(26, m.start);
  w.u64(34, m.end ?? UNDEF_TIMESTAMP);
  w.u64(42, 0n);
  w.u8(50, m.stypeIn === null ? 0xff : STYPES.indexOf(m.stypeIn));
  w.u8(51, STYPES.indexOf(m.stypeOut));
  w.u8(52, m.tsOut ? 1 : 0);
  w.u16(53, SYMBOL_CSTR_LEN);
  let at = 8 + fixed - 4;
  w.u32(at, mappings.length);
  at += 4;
  for (const mapping of mappings) {
    w.str(at, SYMBOL_CSTR_LEN, mapping.rawSymbol);
    w.u32(at + SYMBOL_CSTR_LEN, mapping.intervals.length);
    at += SYMBOL_CSTR_LEN + 4;
    for (const interval of mapping.intervals) {
      w.u32(at, interval.startDate);
      w.u32(at + 4, interval.endDate);
      w.str(at + 8, SYMBOL_CSTR_LEN, interval.symbol);
      at += 8 + SYMBOL_CSTR_LEN;
    }
  }
  return w.bytes;
}
