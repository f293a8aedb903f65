// Constants from databento/dbn rust/dbn/src/lib.rs and compat.rs.

/** One unit of a DBN price is 1e-9. */
export const FIXED_PRICE_SCALE = 1_000_000_000n;
/** `UNDEF_PRICE` (i64::MAX): no price. */
export const UNDEF_PRICE = 0x7fff_ffff_ffff_ffffn;
/** `UNDEF_TIMESTAMP` (u64::MAX): no timestamp. */
export const UNDEF_TIMESTAMP = 0xffff_ffff_ffff_ffffn;
/** `UNDEF_STAT_QUANTITY` in DBN v3 (i64::MAX). */
export const UNDEF_STAT_QUANTITY_V3 = 0x7fff_ffff_ffff_ffffn;
/** `UNDEF_STAT_QUANTITY` in DBN v1 and v2 (i32::MAX). */
export const UNDEF_STAT_QUANTITY_V2 = 0x7fff_ffff;

/** A fixed-point price as a number, or null for `UNDEF_PRICE`. Integer and fraction are converted apart so prices up to 2^53 units keep every digit. */
export function priceToNumber(raw: bigint): number | null {
  if (raw === UNDEF_PRICE) return null;
  return Number(raw / FIXED_PRICE_SCALE) + Number(raw % FIXED_PRICE_SCALE) / 1e9;
}

/** A timestamp that may be `UNDEF_TIMESTAMP`, as null when undefined. */
export function optionalTimestamp(raw: bigint): bigint | null {
  return raw === UNDEF_TIMESTAMP ? null : raw;
}

/** Nanoseconds since the UNIX epoch to JS milliseconds (truncated). */
export function nanosToMs(ns: bigint): number {
  return Number(ns / 1_000_000n);
}

/** A decimal price string as the DBN JSON encoder writes it with pretty prices ("-4100.250000000") to fixed-point units. */
export function decimalToFixed(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) throw new Error(`not a decimal price: ${JSON.stringify(text)}`);
  const [, sign, whole, fraction = ""] = match;
  const units = BigInt(whole!) * FIXED_PRICE_SCALE + BigInt(fraction.padEnd(9, "0"));
  return sign ? -units : units;
}

/** An ISO 8601 UTC timestamp with up to nanosecond digits ("2022-07-21T22:18:11.000000000Z") to nanoseconds. */
export function isoToNanos(text: string): bigint {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(text);
  if (!match) throw new Error(`not an ISO 8601 UTC timestamp: ${JSON.stringify(text)}`);
  const seconds = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(seconds)) throw new Error(`not a valid date: ${JSON.stringify(text)}`);
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? "").padEnd(9, "0"));
}
