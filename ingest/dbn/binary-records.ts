// Binary record layouts (little-endian, `#[repr(C)]`) from databento/dbn rust/dbn/src/record.rs
// (v3) and rust/dbn/src/compat.rs (`InstrumentDefMsgV2`, `StatMsgV1` used by v2). Offsets are
// from the start of the record, header included.
import { readChar, readCString } from "./c-string";
import { RTYPE } from "./enums";
import { DbnDecodeError } from "./errors";
import { optionalTimestamp, priceToNumber, UNDEF_STAT_QUANTITY_V2, UNDEF_STAT_QUANTITY_V3 } from "./fixed-point";
import type { ConsolidatedLevel, DbnRecord, RecordHeaderFields } from "./records";

/** `RecordHeader`: u8 length (in 4-byte words), u8 rtype, u16 publisher_id, u32 instrument_id, u64 ts_event. */
export const RECORD_HEADER_LEN = 16;
export const LENGTH_MULTIPLIER = 4;

/** Bytes each known rtype needs, without `ts_out`, per DBN version. */
function layoutLength(rtype: number, version: number): number | null {
  switch (rtype) {
    case RTYPE.INSTRUMENT_DEF:
      return version >= 3 ? 520 : 400;
    case RTYPE.STATISTICS:
      return version >= 3 ? 80 : 64;
    case RTYPE.CBBO_1S:
    case RTYPE.CBBO_1M:
    case RTYPE.CMBP_1:
    case RTYPE.TCBBO:
      return 80;
    case RTYPE.SYMBOL_MAPPING:
      return 176;
    case RTYPE.SYSTEM:
    case RTYPE.ERROR:
      return 320;
    default:
      return null;
  }
}

/** Where one record sits in a buffer, with the stream facts its layout depends on. */
export interface RecordSlice {
  bytes: Uint8Array;
  view: DataView;
  /** Start of the record in `bytes`. */
  at: number;
  /** Record length in bytes (header length × 4). */
  length: number;
  version: number;
  tsOut: boolean;
  /** Offset of the record in the whole stream, for errors. */
  streamOffset: number;
}

/**
 * Where the fields of `InstrumentDefMsg` past its first 72 bytes (which both versions share) sit:
 * v3 (520 bytes, rust/dbn/src/record.rs) and v2 (400 bytes, `InstrumentDefMsgV2` in compat.rs).
 */
export const DEFINITION_V3 = {
  unitOfMeasureQty: 80,
  strikePrice: 104,
  rawInstrumentId: 112,
  rawInstrumentIdWide: true,
  underlyingId: 140,
  contractMultiplier: 176,
  maturityYear: 214,
  channelId: 218,
  currency: 224,
  rawSymbol: 238,
  exchange: 330,
  asset: 335,
  assetLength: 11,
  cfi: 346,
  securityType: 353,
  underlying: 391,
  strikePriceCurrency: 412,
  instrumentClass: 487,
  securityUpdateAction: 493,
  maturityMonth: 494,
  maturityDay: 495,
};

const DEFINITION_V2: typeof DEFINITION_V3 = {
  unitOfMeasureQty: 88,
  strikePrice: 112,
  rawInstrumentId: 128,
  rawInstrumentIdWide: false,
  underlyingId: 124,
  contractMultiplier: 164,
  maturityYear: 180,
  channelId: 184,
  currency: 186,
  rawSymbol: 200,
  exchange: 292,
  asset: 297,
  assetLength: 7,
  cfi: 304,
  securityType: 311,
  underlying: 349,
  strikePriceCurrency: 370,
  instrumentClass: 374,
  securityUpdateAction: 382,
  maturityMonth: 383,
  maturityDay: 384,
};

/**
 * The fields of the record being decoded, read at offsets from its start. One reader serves every
 * record (methods, not closures per record: a live minute decodes 1.4 M records).
 */
class FieldReader {
  private bytes: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.bytes.buffer);
  private at = 0;

  of(slice: RecordSlice): this {
    [this.bytes, this.view, this.at] = [slice.bytes, slice.view, slice.at];
    return this;
  }
  u8(o: number): number {
    return this.bytes[this.at + o]!;
  }
  u16(o: number): number {
    return this.view.getUint16(this.at + o, true);
  }
  i32(o: number): number {
    return this.view.getInt32(this.at + o, true);
  }
  u32(o: number): number {
    return this.view.getUint32(this.at + o, true);
  }
  i64(o: number): bigint {
    return this.view.getBigInt64(this.at + o, true);
  }
  u64(o: number): bigint {
    return this.view.getBigUint64(this.at + o, true);
  }
  /** A fixed-point price: as one double while the raw value is exact in one (|raw| < 2^53: ±9 million), else by BigInt. */
  px(o: number): number | null {
    const high = this.view.getInt32(this.at + o + 4, true);
    if (high >= -0x20_0000 && high < 0x20_0000) return (high * 0x1_0000_0000 + this.view.getUint32(this.at + o, true)) / 1e9;
    return priceToNumber(this.i64(o));
  }
  str(o: number, width: number): string {
    return readCString(this.bytes, this.at + o, width);
  }
  char(o: number): string | null {
    return readChar(this.bytes, this.at + o);
  }
  /** ConsolidatedBidAskPair at 48: bid_px i64 @0, ask_px i64 @8, bid_sz u32 @16, ask_sz u32 @20, bid_pb u16 @24, reserved 2, ask_pb u16 @28, reserved 2. */
  level(): [ConsolidatedLevel] {
    return [{ bidPx: this.px(48), askPx: this.px(56), bidSz: this.u32(64), askSz: this.u32(68), bidPb: this.u16(72), askPb: this.u16(76) }];
  }
}

const fields = new FieldReader();

/** Decodes one complete record, or returns null for an rtype this decoder does not know. */
export function decodeRecord(slice: RecordSlice): DbnRecord | null {
  const { bytes, at, length, version, tsOut } = slice;
  const rtype = bytes[at + 1]!;
  const needed = layoutLength(rtype, version);
  if (needed === null) return null;
  if (length < needed + (tsOut ? 8 : 0)) {
    throw new DbnDecodeError(
      `record with rtype 0x${rtype.toString(16)} is ${length} bytes, its DBN v${version} layout needs ${needed}${tsOut ? " + 8 (ts_out)" : ""}`,
      slice.streamOffset,
    );
  }
  const r = fields.of(slice);
  const header: RecordHeaderFields = {
    rtype,
    publisherId: r.u16(2),
    instrumentId: r.u32(4),
    tsEvent: r.u64(8),
  };
  if (tsOut) header.tsOut = r.u64(length - 8);

  switch (rtype) {
    case RTYPE.INSTRUMENT_DEF: {
      const at = version >= 3 ? DEFINITION_V3 : DEFINITION_V2;
      return {
        kind: "definition",
        ...header,
        tsRecv: r.u64(16),
        minPriceIncrement: r.px(24),
        displayFactor: r.px(32),
        expiration: optionalTimestamp(r.u64(40)),
        activation: optionalTimestamp(r.u64(48)),
        highLimitPrice: r.px(56),
        lowLimitPrice: r.px(64),
        unitOfMeasureQty: r.px(at.unitOfMeasureQty),
        strikePrice: r.px(at.strikePrice),
        rawInstrumentId: at.rawInstrumentIdWide ? r.u64(at.rawInstrumentId) : BigInt(r.u32(at.rawInstrumentId)),
        underlyingId: r.u32(at.underlyingId),
        contractMultiplier: r.i32(at.contractMultiplier),
        maturityYear: r.u16(at.maturityYear),
        channelId: r.u16(at.channelId),
        currency: r.str(at.currency, 4),
        rawSymbol: r.str(at.rawSymbol, 71),
        exchange: r.str(at.exchange, 5),
        asset: r.str(at.asset, at.assetLength),
        cfi: r.str(at.cfi, 7),
        securityType: r.str(at.securityType, 7),
        underlying: r.str(at.underlying, 21),
        strikePriceCurrency: r.str(at.strikePriceCurrency, 4),
        instrumentClass: r.char(at.instrumentClass) ?? "",
        securityUpdateAction: r.char(at.securityUpdateAction) ?? "",
        maturityMonth: r.u8(at.maturityMonth),
        maturityDay: r.u8(at.maturityDay),
      };
    }
    case RTYPE.STATISTICS: {
      // v3: quantity i64 @40 then sequence @48; v2: quantity i32 @40 then sequence @44.
      const v3 = version >= 3;
      const rawQuantity = v3 ? r.i64(40) : r.i32(40);
      const shift = v3 ? 4 : 0;
      return {
        kind: "statistic",
        ...header,
        tsRecv: r.u64(16),
        tsRef: optionalTimestamp(r.u64(24)),
        price: r.px(32),
        quantity: rawQuantity === (v3 ? UNDEF_STAT_QUANTITY_V3 : UNDEF_STAT_QUANTITY_V2) ? null : Number(rawQuantity),
        sequence: r.u32(44 + shift),
        tsInDelta: r.i32(48 + shift),
        statType: r.u16(52 + shift),
        channelId: r.u16(54 + shift),
        updateAction: r.u8(56 + shift),
        statFlags: r.u8(57 + shift),
      };
    }
    case RTYPE.CBBO_1S:
    case RTYPE.CBBO_1M:
      // price i64 @16, size u32 @24, reserved u8 @28, side @29, flags @30, reserved @31, ts_recv @32, reserved 8 @40.
      return {
        kind: "cbbo",
        ...header,
        tsRecv: r.u64(32),
        price: r.px(16),
        size: r.u32(24),
        side: r.char(29),
        flags: r.u8(30),
        levels: r.level(),
      };
    case RTYPE.CMBP_1:
    case RTYPE.TCBBO:
      // price i64 @16, size u32 @24, action @28, side @29, flags @30, reserved @31, ts_recv @32, ts_in_delta i32 @40.
      return {
        kind: "cmbp1",
        ...header,
        tsRecv: r.u64(32),
        price: r.px(16),
        size: r.u32(24),
        action: r.char(28),
        side: r.char(29),
        flags: r.u8(30),
        tsInDelta: r.i32(40),
        levels: r.level(),
      };
    case RTYPE.SYMBOL_MAPPING:
      return {
        kind: "symbol-mapping",
        ...header,
        stypeIn: r.u8(16),
        stypeInSymbol: r.str(17, 71),
        stypeOut: r.u8(88),
        stypeOutSymbol: r.str(89, 71),
        startTs: optionalTimestamp(r.u64(160)),
        endTs: optionalTimestamp(r.u64(168)),
      };
    case RTYPE.SYSTEM:
      return { kind: "system", ...header, msg: r.str(16, 303), code: r.u8(319) };
    case RTYPE.ERROR:
      return { kind: "error", ...header, err: r.str(16, 302), code: r.u8(318), isLast: r.u8(319) };
    default:
      return null;
  }
}
