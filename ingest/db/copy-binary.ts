import type { CopyColumn, CopyValue } from "./database";

/** How many bytes a chunk of COPY data holds before it is handed on. */
const CHUNK_BYTES = 1 << 20;

/** `PGCOPY\n\377\r\n\0`, then no flags and no header extension. */
const HEADER = Uint8Array.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]);
const TRAILER = Uint8Array.from([0xff, 0xff]);

/** PostgreSQL's epoch for dates and timestamps, 2000-01-01 UTC, in Unix milliseconds. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const DAY_MS = 86_400_000;

/**
 * A column's value to its binary form, its length known upfront for the fixed-width types. Dates
 * and timestamps come as ISO strings; consecutive rows mostly repeat them (a minute's samples, a
 * chain's expirations), so the last one parsed is kept.
 */
function encoderOf(column: CopyColumn): (value: Exclude<CopyValue, null>, out: Buffer, at: number) => number {
  switch (column.type) {
    case "float8":
      return (v, out, at) => out.writeDoubleBE(Number(v), out.writeInt32BE(8, at));
    case "int8":
      return (v, out, at) => out.writeBigInt64BE(BigInt(v), out.writeInt32BE(8, at));
    case "int4":
      return (v, out, at) => out.writeInt32BE(Number(v), out.writeInt32BE(4, at));
    case "int2":
      return (v, out, at) => out.writeInt16BE(Number(v), out.writeInt32BE(2, at));
    case "bool":
      return (v, out, at) => out.writeUInt8(v === true || v === "true" ? 1 : 0, out.writeInt32BE(1, at));
    case "date":
      return remembering(
        (v) => {
          const ms = Date.parse(`${String(v)}T00:00:00Z`);
          if (Number.isNaN(ms)) throw new TypeError(`COPY ${column.name}: not a date: ${String(v)}`);
          return (ms - PG_EPOCH_MS) / DAY_MS;
        },
        (days, out, at) => out.writeInt32BE(days, out.writeInt32BE(4, at)),
      );
    case "timestamptz":
      return remembering(
        (v) => {
          const ms = typeof v === "number" ? v : Date.parse(String(v));
          if (Number.isNaN(ms)) throw new TypeError(`COPY ${column.name}: not a timestamp: ${String(v)}`);
          return BigInt(ms - PG_EPOCH_MS) * 1000n;
        },
        (micros, out, at) => out.writeBigInt64BE(micros, out.writeInt32BE(8, at)),
      );
    case "text":
      return (v, out, at) => {
        const text = String(v);
        const length = out.write(text, at + 4, "utf8");
        out.writeInt32BE(length, at);
        return at + 4 + length;
      };
  }
}

function remembering<T>(parse: (v: Exclude<CopyValue, null>) => T, write: (parsed: T, out: Buffer, at: number) => number) {
  let last: Exclude<CopyValue, null> | undefined;
  let parsed: T;
  return (v: Exclude<CopyValue, null>, out: Buffer, at: number) => {
    if (v !== last) [last, parsed] = [v, parse(v)];
    return write(parsed, out, at);
  };
}

/** The most bytes a value of the column can take: its length word plus the widest UTF-8 of a text. */
const maxBytes = (value: CopyValue) => 4 + (typeof value === "string" ? value.length * 3 : 8);

/**
 * Rows as COPY binary-format data (`FORMAT binary`), in chunks of about 1 MB: each value written
 * as PostgreSQL stores it, so neither side formats or parses numbers as text. The values must
 * match the columns' types; a value that does not is a TypeError, not a wrong row.
 */
export function* copyBinary(columns: readonly CopyColumn[], rows: Iterable<readonly CopyValue[]>): Generator<Uint8Array, void, undefined> {
  const encoders = columns.map(encoderOf);
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  chunk.set(HEADER);
  let at = HEADER.length;
  for (const row of rows) {
    if (row.length !== columns.length) throw new TypeError(`COPY: a row of ${row.length} values for ${columns.length} columns`);
    let need = 2;
    for (const value of row) need += maxBytes(value);
    if (at + need > chunk.length) {
      yield chunk.subarray(0, at);
      chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, need));
      at = 0;
    }
    at = chunk.writeInt16BE(columns.length, at);
    for (let i = 0; i < row.length; i++) {
      const value = row[i]!;
      at = value === null ? chunk.writeInt32BE(-1, at) : encoders[i]!(value, chunk, at);
    }
  }
  if (at + TRAILER.length > chunk.length) {
    yield chunk.subarray(0, at);
    chunk = Buffer.allocUnsafe(TRAILER.length);
    at = 0;
  }
  chunk.set(TRAILER, at);
  yield chunk.subarray(0, at + TRAILER.length);
}

/** The COPY statement `copyBinary`'s data answers, reading from `source` (`stdin`, or PGlite's `'/dev/blob'`). */
export function copyFromSql(table: string, columns: readonly CopyColumn[], source: string): string {
  return `copy ${table} (${columns.map((c) => c.name).join(", ")}) from ${source} with (format binary)`;
}
