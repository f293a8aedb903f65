// Values from databento/dbn rust/dbn/src/enums.rs.

/** Record types (`RType`) the decoder knows; any other rtype is skipped by its length. */
export const RTYPE = {
  INSTRUMENT_DEF: 0x13,
  ERROR: 0x15,
  SYMBOL_MAPPING: 0x16,
  SYSTEM: 0x17,
  STATISTICS: 0x18,
  CMBP_1: 0xb1,
  CBBO_1S: 0xc0,
  CBBO_1M: 0xc1,
  TCBBO: 0xc2,
} as const;

/** `Schema` by its u16 value in the metadata header (index = value). */
export const SCHEMAS = [
  "mbo",
  "mbp-1",
  "mbp-10",
  "tbbo",
  "trades",
  "ohlcv-1s",
  "ohlcv-1m",
  "ohlcv-1h",
  "ohlcv-1d",
  "definition",
  "statistics",
  "status",
  "imbalance",
  "ohlcv-eod",
  "cmbp-1",
  "cbbo-1s",
  "cbbo-1m",
  "tcbbo",
  "bbo-1s",
  "bbo-1m",
] as const;
export type SchemaName = (typeof SCHEMAS)[number];

/** `SType` by its u8 value (index = value). */
export const STYPES = [
  "instrument_id",
  "raw_symbol",
  "smart",
  "continuous",
  "parent",
  "nasdaq_symbol",
  "cms_symbol",
  "isin",
  "us_code",
  "bbg_comp_id",
  "bbg_comp_ticker",
  "figi",
  "figi_ticker",
] as const;
export type STypeName = (typeof STYPES)[number];

/** `StatType` values an options pipeline reads (the enum has more). */
export const STAT_TYPE = {
  OPENING_PRICE: 1,
  SETTLEMENT_PRICE: 3,
  TRADING_SESSION_LOW_PRICE: 4,
  TRADING_SESSION_HIGH_PRICE: 5,
  CLEARED_VOLUME: 6,
  OPEN_INTEREST: 9,
  CLOSE_PRICE: 11,
} as const;

/** `StatUpdateAction`. */
export const STAT_UPDATE_ACTION = { NEW: 1, DELETE: 2 } as const;

/** `ErrorCode` of a gateway's `ErrorMsg` (DBN v2+; databento-cpp include/databento/enums.hpp). */
export const ERROR_CODE = {
  AUTH_FAILED: 1,
  API_KEY_DEACTIVATED: 2,
  CONNECTION_LIMIT_EXCEEDED: 3,
  SYMBOL_RESOLUTION_FAILED: 4,
  INVALID_SUBSCRIPTION: 5,
  INTERNAL_ERROR: 6,
  /** Records were skipped to let a slow reader catch up: what was skipped must be replayed. */
  SKIPPED_RECORDS_AFTER_SLOW_READING: 7,
  /** The replay asked for is no longer retained (and the schema cannot skip records). */
  REPLAY_DATA_AGED_OUT: 8,
  UNSET: 255,
} as const;

/** `SystemCode` (DBN v2+; heartbeats are system records with code 0). */
export const SYSTEM_CODE = {
  HEARTBEAT: 0,
  SUBSCRIPTION_ACK: 1,
  SLOW_READER_WARNING: 2,
  REPLAY_COMPLETED: 3,
  END_OF_INTERVAL: 4,
  UNSET: 255,
} as const;

/** Bits of the `flags` field (rust/dbn/src/flags.rs). */
export const FLAGS = {
  LAST: 1 << 7,
  TOB: 1 << 6,
  SNAPSHOT: 1 << 5,
  MBP: 1 << 4,
  BAD_TS_RECV: 1 << 3,
  MAYBE_BAD_BOOK: 1 << 2,
  PUBLISHER_SPECIFIC: 1 << 1,
} as const;
