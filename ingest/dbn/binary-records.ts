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

/** Decodes one complete record, or returns null for an rtype this decoder does not know. */
export function decodeRecord(slice: RecordSlice): DbnRecord | null {
  const { bytes, view, at, length, version, tsOut } = slice;
  const rtype = bytes[at + 1]!;
  const needed = layoutLength(rtype, version);
  if (needed === null) return null;
  if (length < needed + (tsOut ? 8 : 0)) {
    throw new DbnDecodeError(
      `record with rtype 0x${rtype.toString(16)} is ${length} bytes, its DBN v${version} layout needs ${needed}${tsOut ? " + 8 (ts_out)" : ""}`,
      slice.streamOffset,
    );
  }
  const u8 = (o: number) => bytes[at + o]!;
  const u16 = (o: number) => view.getUint16(at + o, true);
  const i32 = (o: number) => view.getInt32(at + o, true);
  const u32 = (o: number) => view.getUint32(at + o, true);
  const i64 = (o: number) => view.getBigInt64(at + o, true);
  const u64 = (o: number) => view.getBigUint64(at + o, true);
  const px = (o: number) => priceToNumber(i64(o));
  const str = (o: number, width: number) => readCString(bytes, at + o, width);
  const char = (o: number) => readChar(bytes, at + o);

  const header: RecordHeaderFields = {
    rtype,
    publisherId: u16(2),
    instrumentId: u32(4),
    tsEvent: u64(8),
  };
  if (tsOut) header.tsOut = u64(length - 8);

  // ConsolidatedBidAskPair at 48: bid_px i64 @0, ask_px i64 @8, bid_sz u32 @16, ask_sz u32 @20,
  // bid_pb u16 @24, reserved 2, ask_pb u16 @28, reserved 2.
  const level = (): [ConsolidatedLevel] => [
    { bidPx: px(48), askPx: px(56), bidSz: u32(64), askSz: u32(68), bidPb: u16(72), askPb: u16(76) },
  ];

  switch (rtype) {
    case RTYPE.INSTRUMENT_DEF: {
      const at = version >= 3 ? DEFINITION_V3 : DEFINITION_V2;
      return {
        kind: "definition",
        ...header,
        tsRecv: u64(16),
        minPriceIncrement: px(24),
        displayFactor: px(32),
        expiration: optionalTimestamp(u64(40)),
        activation: optionalTimestamp(u64(48)),
        highLimitPrice: px(56),
        lowLimitPrice: px(64),
        unitOfMeasureQty: px(at.unitOfMeasureQty),
        strikePrice: px(at.strikePrice),
        rawInstrumentId: at.rawInstrumentIdWide ? u64(at.rawInstrumentId) : BigInt(u32(at.rawInstrumentId)),
        underlyingId: u32(at.underlyingId),
        contractMultiplier: i32(at.contractMultiplier),
        maturityYear: u16(at.maturityYear),
        channelId: u16(at.channelId),
        currency: str(at.currency, 4),
        rawSymbol: str(at.rawSymbol, 71),
        exchange: str(at.exchange, 5),
        asset: str(at.asset, at.assetLength),
        cfi: str(at.cfi, 7),
        securityType: str(at.securityType, 7),
        underlying: str(at.underlying, 21),
        strikePriceCurrency: str(at.strikePriceCurrency, 4),
        instrumentClass: char(at.instrumentClass) ?? "",
        securityUpdateAction: char(at.securityUpdateAction) ?? "",
        maturityMonth: u8(at.maturityMonth),
        maturityDay: u8(at.maturityDay),
      };
    }
    case RTYPE.STATISTICS: {
      // v3: quantity i64 @40 then sequence @48; v2: quantity i32 @40 then sequence @44.
      const v3 = version >= 3;
      const rawQuantity = v3 ? i64(40) : i32(40);
      const shift = v3 ? 4 : 0;
      return {
        kind: "statistic",
        ...header,
        tsRecv: u64(16),
        tsRef: optionalTimestamp(u64(24)),
        price: px(32),
        quantity: rawQuantity === (v3 ? UNDEF_STAT_QUANTITY_V3 : UNDEF_STAT_QUANTITY_V2) ? null : Number(rawQuantity),
        sequence: u32(44 + shift),
        tsInDelta: i32(48 + shift),
        statType: u16(52 + shift),
        channelId: u16(54 + shift),
        updateAction: u8(56 + shift),
        statFlags: u8(57 + shift),
      };
    }
    case RTYPE.CBBO_1S:
    case RTYPE.CBBO_1M:
      // price i64 @16, size u32 @24, reserved u8 @28, side @29, flags @30, reserved @31, ts_recv @32, reserved 8 @40.
      return {
        kind: "cbbo",
        ...header,
        tsRecv: u64(32),
        price: px(16),
        size: u32(24),
        side: char(29),
        flags: u8(30),
        levels: level(),
      };
    case RTYPE.CMBP_1:
    case RTYPE.TCBBO:
      // price i64 @16, size u32 @24, action @28, side @29, flags @30, reserved @31, ts_recv @32, ts_in_delta i32 @40.
      return {
        kind: "cmbp1",
        ...header,
        tsRecv: u64(32),
        price: px(16),
        size: u32(24),
        action: char(28),
        side: char(29),
        flags: u8(30),
        tsInDelta: i32(40),
        levels: level(),
      };
    case RTYPE.SYMBOL_MAPPING:
      return {
        kind: "symbol-mapping",
        ...header,
        stypeIn: u8(16),
        stypeInSymbol: str(17, 71),
        stypeOut: u8(88),
        stypeOutSymbol: str(89, 71),
        startTs: optionalTimestamp(u64(160)),
        endTs: optionalTimestamp(u64(168)),
      };
    case RTYPE.SYSTEM:
      return { kind: "system", ...header, msg: str(16, 303), code: u8(319) };
    case RTYPE.ERROR:
      return { kind: "error", ...header, err: str(16, 302), code: u8(318), isLast: u8(319) };
    default:
      return null;
  }
}
