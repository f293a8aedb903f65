// DBN records written by hand from the layouts in databento/dbn rust/dbn/src/record.rs (v3) and
// rust/dbn/src/compat.rs (v2), each with the object the decoder must produce and its JSON-lines
// twin as rust/dbn/src/encode/json/serialize.rs writes it.
import type {
  CbboRecord,
  Cmbp1Record,
  DefinitionRecord,
  ErrorRecord,
  StatisticRecord,
  SymbolMappingRecord,
  SystemRecord,
} from "../../ingest/dbn";
import { LeBytes } from "./dbn-bytes";

export const UNDEF_PRICE = 0x7fff_ffff_ffff_ffffn;
export const UNDEF_TIMESTAMP = 0xffff_ffff_ffff_ffffn;
/** 2025-01-10T14:30:00.123456789Z */
export const TS_EVENT = 1_736_519_400_123_456_789n;
export const TS_RECV = TS_EVENT + 1_000n;
/** 2025-01-17T21:00:00Z */
export const EXPIRATION = 1_737_147_600_000_000_000n;
export const OPRA_PUBLISHER = 30;

/** `RecordHeader` @0: length u8 (4-byte words) @0, rtype u8 @1, publisher_id u16 @2, instrument_id u32 @4, ts_event u64 @8. */
function header(size: number, rtype: number, instrumentId: number): LeBytes {
  return new LeBytes(size)
    .u8(0, size / 4) // length
    .u8(1, rtype) // rtype
    .u16(2, OPRA_PUBLISHER) // publisher_id
    .u32(4, instrumentId) // instrument_id
    .u64(8, TS_EVENT); // ts_event
}

const hd = (rtype: number, instrumentId: number) => ({
  rtype,
  publisherId: OPRA_PUBLISHER,
  instrumentId,
  tsEvent: TS_EVENT,
});
const hdJson = (rtype: number, instrumentId: number) =>
  `"hd":{"ts_event":"${TS_EVENT}","rtype":${rtype},"publisher_id":${OPRA_PUBLISHER},"instrument_id":${instrumentId}}`;

/** v3 `InstrumentDefMsg`, 520 bytes, rtype 0x13: an AAPL call. */
export function definitionV3(): { bytes: Uint8Array; record: DefinitionRecord; json: string; prettyJson: string } {
  const w = header(520, 0x13, 1_234_567)
    .u64(16, TS_RECV) // ts_recv
    .i64(24, 10_000_000n) // min_price_increment 0.01
    .i64(32, 1_000_000_000n) // display_factor 1
    .u64(40, EXPIRATION) // expiration
    .u64(48, UNDEF_TIMESTAMP) // activation
    .i64(56, UNDEF_PRICE) // high_limit_price
    .i64(64, UNDEF_PRICE) // low_limit_price
    .i64(72, UNDEF_PRICE) // max_price_variation
    .i64(80, 100_000_000_000n) // unit_of_measure_qty 100
    .i64(88, UNDEF_PRICE) // min_price_increment_amount
    .i64(96, UNDEF_PRICE) // price_ratio
    .i64(104, 150_000_000_000n) // strike_price 150
    .u64(112, 1_234_567n) // raw_instrument_id
    .i64(120, UNDEF_PRICE) // leg_price
    .i64(128, UNDEF_PRICE) // leg_delta
    .u32(140, 0) // underlying_id
    .i32(176, 100) // contract_multiplier
    .u16(214, 2025) // maturity_year
    .u16(218, 7) // channel_id
    .cstr(224, 4, "USD") // currency
    .cstr(238, 71, "AAPL  250117C00150000") // raw_symbol
    .cstr(330, 5, "OPRA") // exchange
    .cstr(335, 11, "AAPL") // asset
    .cstr(346, 7, "OCASPS") // cfi
    .cstr(353, 7, "OPT") // security_type
    .cstr(391, 21, "AAPL") // underlying
    .cstr(412, 4, "USD") // strike_price_currency
    .char(487, "C") // instrument_class
    .char(488, "F") // match_algorithm
    .char(493, "A") // security_update_action
    .u8(494, 1) // maturity_month
    .u8(495, 17) // maturity_day
    .char(497, "N"); // user_defined_instrument
  const record: DefinitionRecord = {
    kind: "definition",
    ...hd(0x13, 1_234_567),
    tsRecv: TS_RECV,
    rawSymbol: "AAPL  250117C00150000",
    underlying: "AAPL",
    asset: "AAPL",
    instrumentClass: "C",
    strikePrice: 150,
    strikePriceCurrency: "USD",
    expiration: EXPIRATION,
    activation: null,
    minPriceIncrement: 0.01,
    displayFactor: 1,
    highLimitPrice: null,
    lowLimitPrice: null,
    unitOfMeasureQty: 100,
    contractMultiplier: 100,
    underlyingId: 0,
    rawInstrumentId: 1_234_567n,
    currency: "USD",
    exchange: "OPRA",
    cfi: "OCASPS",
    securityType: "OPT",
    securityUpdateAction: "A",
    channelId: 7,
    maturityYear: 2025,
    maturityMonth: 1,
    maturityDay: 17,
  };
  const U = String(UNDEF_PRICE);
  const json =
    `{"ts_recv":"${TS_RECV}",${hdJson(0x13, 1_234_567)},"raw_symbol":"AAPL  250117C00150000","security_update_action":"A","instrument_class":"C",` +
    `"min_price_increment":"10000000","display_factor":"1000000000","expiration":"${EXPIRATION}","activation":"${UNDEF_TIMESTAMP}",` +
    `"high_limit_price":"${U}","low_limit_price":"${U}","max_price_variation":"${U}","unit_of_measure_qty":"100000000000",` +
    `"min_price_increment_amount":"${U}","price_ratio":"${U}","inst_attrib_value":0,"underlying_id":0,"raw_instrument_id":"1234567",` +
    `"market_depth_implied":0,"market_depth":0,"market_segment_id":0,"max_trade_vol":0,"min_lot_size":0,"min_lot_size_block":0,` +
    `"min_lot_size_round_lot":0,"min_trade_vol":0,"contract_multiplier":100,"decay_quantity":0,"original_contract_size":0,"appl_id":0,` +
    `"maturity_year":2025,"decay_start_date":0,"channel_id":7,"currency":"USD","settl_currency":"","secsubtype":"","group":"","exchange":"OPRA",` +
    `"asset":"AAPL","cfi":"OCASPS","security_type":"OPT","unit_of_measure":"","underlying":"AAPL","strike_price_currency":"USD",` +
    `"strike_price":"150000000000","match_algorithm":"F","main_fraction":0,"price_display_format":0,"sub_fraction":0,"underlying_product":0,` +
    `"maturity_month":1,"maturity_day":17,"maturity_week":0,"user_defined_instrument":"N","contract_multiplier_unit":0,"flow_schedule_type":0,` +
    `"tick_rule":0,"leg_count":0,"leg_index":0,"leg_instrument_id":0,"leg_raw_symbol":"","leg_instrument_class":null,"leg_side":null,` +
    `"leg_price":"${U}","leg_delta":"${U}","leg_ratio_price_numerator":0,"leg_ratio_price_denominator":0,"leg_ratio_qty_numerator":0,` +
    `"leg_ratio_qty_denominator":0,"leg_underlying_id":0}`;
  // The same with pretty_px and pretty_ts, as the historical API writes by default.
  const prettyJson = json
    .replace(`"ts_recv":"${TS_RECV}"`, `"ts_recv":"2025-01-10T14:30:00.123457789Z"`)
    .replace(`"ts_event":"${TS_EVENT}"`, `"ts_event":"2025-01-10T14:30:00.123456789Z"`)
    .replace(`"expiration":"${EXPIRATION}"`, `"expiration":"2025-01-17T21:00:00.000000000Z"`)
    .replace(`"activation":"${UNDEF_TIMESTAMP}"`, `"activation":null`)
    .replaceAll(`"${U}"`, "null")
    .replace(`"min_price_increment":"10000000"`, `"min_price_increment":"0.010000000"`)
    .replace(`"display_factor":"1000000000"`, `"display_factor":"1.000000000"`)
    .replace(`"unit_of_measure_qty":"100000000000"`, `"unit_of_measure_qty":"100.000000000"`)
    .replace(`"strike_price":"150000000000"`, `"strike_price":"150.000000000"`);
  return { bytes: w.bytes, record, json, prettyJson };
}

/** v2 `InstrumentDefMsgV2`, 400 bytes: an AAPL put (raw_instrument_id u32, asset 7 bytes). */
export function definitionV2(): { bytes: Uint8Array; record: DefinitionRecord } {
  const w = header(400, 0x13, 7_654_321)
    .u64(16, TS_RECV) // ts_recv
    .i64(24, 5_000_000n) // min_price_increment 0.005
    .i64(32, 1_000_000_000n) // display_factor
    .u64(40, EXPIRATION) // expiration
    .u64(48, TS_EVENT) // activation
    .i64(56, 500_000_000_000n) // high_limit_price 500
    .i64(64, 0n) // low_limit_price 0
    .i64(72, UNDEF_PRICE) // max_price_variation
    .i64(80, UNDEF_PRICE) // trading_reference_price (v2 only)
    .i64(88, 100_000_000_000n) // unit_of_measure_qty 100
    .i64(96, UNDEF_PRICE) // min_price_increment_amount
    .i64(104, UNDEF_PRICE) // price_ratio
    .i64(112, 145_500_000_000n) // strike_price 145.5
    .u32(124, 42) // underlying_id
    .u32(128, 7_654_321) // raw_instrument_id (u32 in v2)
    .i32(164, 100) // contract_multiplier
    .u16(180, 2025) // maturity_year
    .u16(184, 3) // channel_id
    .cstr(186, 4, "USD") // currency
    .cstr(200, 71, "AAPL  250117P00145500") // raw_symbol
    .cstr(292, 5, "OPRA") // exchange
    .cstr(297, 7, "AAPL") // asset
    .cstr(304, 7, "OPASPS") // cfi
    .cstr(311, 7, "OPT") // security_type
    .cstr(349, 21, "AAPL") // underlying
    .cstr(370, 4, "USD") // strike_price_currency
    .char(374, "P") // instrument_class
    .char(382, "M") // security_update_action
    .u8(383, 1) // maturity_month
    .u8(384, 17); // maturity_day
  const record: DefinitionRecord = {
    kind: "definition",
    ...hd(0x13, 7_654_321),
    tsRecv: TS_RECV,
    rawSymbol: "AAPL  250117P00145500",
    underlying: "AAPL",
    asset: "AAPL",
    instrumentClass: "P",
    strikePrice: 145.5,
    strikePriceCurrency: "USD",
    expiration: EXPIRATION,
    activation: TS_EVENT,
    minPriceIncrement: 0.005,
    displayFactor: 1,
    highLimitPrice: 500,
    lowLimitPrice: 0,
    unitOfMeasureQty: 100,
    contractMultiplier: 100,
    underlyingId: 42,
    rawInstrumentId: 7_654_321n,
    currency: "USD",
    exchange: "OPRA",
    cfi: "OPASPS",
    securityType: "OPT",
    securityUpdateAction: "M",
    channelId: 3,
    maturityYear: 2025,
    maturityMonth: 1,
    maturityDay: 17,
  };
  return { bytes: w.bytes, record };
}

/** v3 `StatMsg`, 80 bytes, rtype 0x18: open interest. */
export function statisticV3(): { bytes: Uint8Array; record: StatisticRecord; json: string } {
  const tsRef = 1_736_467_200_000_000_000n;
  const w = header(80, 0x18, 1_234_567)
    .u64(16, TS_RECV) // ts_recv
    .u64(24, tsRef) // ts_ref
    .i64(32, UNDEF_PRICE) // price
    .i64(40, 12_345n) // quantity (i64 in v3)
    .u32(48, 99) // sequence
    .i32(52, -250) // ts_in_delta
    .u16(56, 9) // stat_type OpenInterest
    .u16(58, 7) // channel_id
    .u8(60, 1) // update_action New
    .u8(61, 0); // stat_flags
  const record: StatisticRecord = {
    kind: "statistic",
    ...hd(0x18, 1_234_567),
    tsRecv: TS_RECV,
    tsRef,
    price: null,
    quantity: 12_345,
    sequence: 99,
    tsInDelta: -250,
    statType: 9,
    channelId: 7,
    updateAction: 1,
    statFlags: 0,
  };
  const json =
    `{"ts_recv":"${TS_RECV}",${hdJson(0x18, 1_234_567)},"ts_ref":"${tsRef}","price":"${UNDEF_PRICE}","quantity":"12345",` +
    `"sequence":99,"ts_in_delta":-250,"stat_type":9,"channel_id":7,"update_action":1,"stat_flags":0}`;
  return { bytes: w.bytes, record, json };
}

/** v2 `StatMsgV1`, 64 bytes: a settlement price with quantity UNDEF (i32::MAX). */
export function statisticV2(): { bytes: Uint8Array; record: StatisticRecord } {
  const w = header(64, 0x18, 1_234_567)
    .u64(16, TS_RECV) // ts_recv
    .u64(24, UNDEF_TIMESTAMP) // ts_ref
    .i64(32, 2_150_000_000n) // price 2.15
    .i32(40, 0x7fff_ffff) // quantity (i32 in v2) UNDEF_STAT_QUANTITY
    .u32(44, 5) // sequence
    .i32(48, 0) // ts_in_delta
    .u16(52, 3) // stat_type SettlementPrice
    .u16(54, 2) // channel_id
    .u8(56, 2) // update_action Delete
    .u8(57, 1); // stat_flags
  const record: StatisticRecord = {
    kind: "statistic",
    ...hd(0x18, 1_234_567),
    tsRecv: TS_RECV,
    tsRef: null,
    price: 2.15,
    quantity: null,
    sequence: 5,
    tsInDelta: 0,
    statType: 3,
    channelId: 2,
    updateAction: 2,
    statFlags: 1,
  };
  return { bytes: w.bytes, record };
}

/** `ConsolidatedBidAskPair` at 48: bid_px @48, ask_px @56, bid_sz @64, ask_sz @68, bid_pb @72, ask_pb @76. */
function level(w: LeBytes): LeBytes {
  return w
    .i64(48, 2_150_000_000n) // bid_px 2.15
    .i64(56, 2_200_000_000n) // ask_px 2.20
    .u32(64, 12) // bid_sz
    .u32(68, 30) // ask_sz
    .u16(72, 31) // bid_pb
    .u16(76, 40); // ask_pb
}
const LEVEL = { bidPx: 2.15, askPx: 2.2, bidSz: 12, askSz: 30, bidPb: 31, askPb: 40 };
const LEVEL_JSON = `"levels":[{"bid_px":"2150000000","ask_px":"2200000000","bid_sz":12,"ask_sz":30,"bid_pb":31,"ask_pb":40}]`;

/** `CbboMsg`, 80 bytes, rtype 0xC1 (cbbo-1m): no trade in the session. */
export function cbbo1m(): { bytes: Uint8Array; record: CbboRecord; json: string } {
  const w = level(
    header(80, 0xc1, 1_234_567)
      .i64(16, UNDEF_PRICE) // price (last trade)
      .u32(24, 0) // size
      .char(29, "N") // side
      .u8(30, 0) // flags
      .u64(32, TS_RECV), // ts_recv
  );
  const record: CbboRecord = {
    kind: "cbbo",
    ...hd(0xc1, 1_234_567),
    tsRecv: TS_RECV,
    price: null,
    size: 0,
    side: "N",
    flags: 0,
    levels: [LEVEL],
  };
  const json = `{"ts_recv":"${TS_RECV}",${hdJson(0xc1, 1_234_567)},"side":"N","price":"${UNDEF_PRICE}","size":0,"flags":0,${LEVEL_JSON}}`;
  return { bytes: w.bytes, record, json };
}

/** `Cmbp1Msg`, 80 bytes, rtype 0xC2 (tcbbo): a buy-aggressor trade. */
export function tcbbo(): { bytes: Uint8Array; record: Cmbp1Record; json: string } {
  const w = level(
    header(80, 0xc2, 1_234_567)
      .i64(16, 2_180_000_000n) // price 2.18
      .u32(24, 5) // size
      .char(28, "T") // action
      .char(29, "B") // side
      .u8(30, 0x80) // flags LAST
      .u64(32, TS_RECV) // ts_recv
      .i32(40, 1_500), // ts_in_delta
  );
  const record: Cmbp1Record = {
    kind: "cmbp1",
    ...hd(0xc2, 1_234_567),
    tsRecv: TS_RECV,
    price: 2.18,
    size: 5,
    action: "T",
    side: "B",
    flags: 128,
    tsInDelta: 1_500,
    levels: [LEVEL],
  };
  const json = `{"ts_recv":"${TS_RECV}",${hdJson(0xc2, 1_234_567)},"action":"T","side":"B","price":"2180000000","size":5,"flags":128,"ts_in_delta":1500,${LEVEL_JSON}}`;
  return { bytes: w.bytes, record, json };
}

/** `SymbolMappingMsg`, 176 bytes, rtype 0x16. */
export function symbolMapping(): { bytes: Uint8Array; record: SymbolMappingRecord; json: string } {
  const w = header(176, 0x16, 1_234_567)
    .u8(16, 4) // stype_in Parent
    .cstr(17, 71, "AAPL.OPT") // stype_in_symbol
    .u8(88, 1) // stype_out RawSymbol
    .cstr(89, 71, "AAPL  250117C00150000") // stype_out_symbol
    .u64(160, 1_736_467_200_000_000_000n) // start_ts
    .u64(168, UNDEF_TIMESTAMP); // end_ts
  const record: SymbolMappingRecord = {
    kind: "symbol-mapping",
    ...hd(0x16, 1_234_567),
    stypeIn: 4,
    stypeInSymbol: "AAPL.OPT",
    stypeOut: 1,
    stypeOutSymbol: "AAPL  250117C00150000",
    startTs: 1_736_467_200_000_000_000n,
    endTs: null,
  };
  const json = `{${hdJson(0x16, 1_234_567)},"stype_in":4,"stype_in_symbol":"AAPL.OPT","stype_out":1,"stype_out_symbol":"AAPL  250117C00150000","start_ts":"1736467200000000000","end_ts":"${UNDEF_TIMESTAMP}"}`;
  return { bytes: w.bytes, record, json };
}

/** `SystemMsg`, 320 bytes, rtype 0x17: a heartbeat. */
export function heartbeat(): { bytes: Uint8Array; record: SystemRecord; json: string } {
  const w = header(320, 0x17, 0)
    .cstr(16, 303, "Heartbeat") // msg
    .u8(319, 0); // code Heartbeat
  const record: SystemRecord = { kind: "system", ...hd(0x17, 0), msg: "Heartbeat", code: 0 };
  const json = `{${hdJson(0x17, 0)},"msg":"Heartbeat","code":0}`;
  return { bytes: w.bytes, record, json };
}

/** `ErrorMsg`, 320 bytes, rtype 0x15. */
export function errorRecord(): { bytes: Uint8Array; record: ErrorRecord; json: string } {
  const w = header(320, 0x15, 0)
    .cstr(16, 302, "Symbol resolution failed for XYZ.OPT") // err
    .u8(318, 4) // code SymbolResolutionFailed
    .u8(319, 1); // is_last
  const record: ErrorRecord = {
    kind: "error",
    ...hd(0x15, 0),
    err: "Symbol resolution failed for XYZ.OPT",
    code: 4,
    isLast: 1,
  };
  const json = `{${hdJson(0x15, 0)},"err":"Symbol resolution failed for XYZ.OPT","code":4,"is_last":1}`;
  return { bytes: w.bytes, record, json };
}

/** A 56-byte `OhlcvMsg` (rtype 0x21): a record type the decoder does not read. */
export function ohlcv1m(): Uint8Array {
  return header(56, 0x21, 1_234_567)
    .i64(16, 2_000_000_000n) // open
    .i64(24, 2_300_000_000n) // high
    .i64(32, 1_900_000_000n) // low
    .i64(40, 2_200_000_000n) // close
    .u64(48, 77n).bytes; // volume
}

/**
 * A v2/v3 metadata header (fsm.rs `decode_metadata_impl`): prelude "DBN", version u8, length u32;
 * then dataset [16] @8, schema u16 @24, start u64 @26, end u64 @34, limit u64 @42, stype_in u8 @50,
 * stype_out u8 @51, ts_out u8 @52, symbol_cstr_len u16 @53, reserved [53] @55,
 * schema_definition_length u32 @108, then symbols, partial, not_found (u32 count + count × 71-byte
 * strings each) and mappings (u32 count; each raw_symbol [71], u32 interval count, intervals of
 * start_date u32, end_date u32, symbol [71]).
 */
export function metadataHeader(version: number, schema: number, tsOut: boolean): Uint8Array {
  const S = 71;
  const size = 112 + (4 + S) + 4 + 4 + 4 + (S + 4 + (8 + S));
  const w = new LeBytes(size)
    .cstr(0, 4, "DBN") // magic
    .u8(3, version) // version
    .u32(4, size - 8) // length of the rest
    .cstr(8, 16, "OPRA.PILLAR") // dataset
    .u16(24, schema) // schema
    .u64(26, 1_736_467_200_000_000_000n) // start
    .u64(34, 1_736_553_600_000_000_000n) // end
    .u64(42, 0n) // limit (0 = none)
    .u8(50, 4) // stype_in Parent
    .u8(51, 0) // stype_out InstrumentId
    .u8(52, tsOut ? 1 : 0) // ts_out
    .u16(53, S) // symbol_cstr_len
    .u32(108, 0); // schema_definition_length
  let at = 112;
  w.u32(at, 1).cstr(at + 4, S, "AAPL.OPT"); // symbols: 1
  at += 4 + S;
  w.u32(at, 0); // partial: 0
  w.u32(at + 4, 0); // not_found: 0
  w.u32(at + 8, 1); // mappings: 1
  at += 12;
  w.cstr(at, S, "AAPL  250117C00150000"); // raw_symbol
  w.u32(at + S, 1); // interval count
  w.u32(at + S + 4, 20250110); // start_date
  w.u32(at + S + 8, 20250111); // end_date
  w.cstr(at + S + 12, S, "1234567"); // symbol
  return w.bytes;
}
