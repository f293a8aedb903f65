// The JSON-lines encoding written by databento/dbn rust/dbn/src/encode/json/serialize.rs:
// one object per line, the record header nested as `hd`, 64-bit integers as strings, prices as
// integer strings or (with pretty_px) decimal strings with null for UNDEF_PRICE, timestamps as
// integer strings or (with pretty_ts) ISO 8601 strings with null for 0 and UNDEF_TIMESTAMP.
// An optional metadata line (`encode_metadata`) is recognised by its `version` key.
import { RTYPE, SCHEMAS, STYPES, type SchemaName, type STypeName } from "./enums";
import { DbnDecodeError } from "./errors";
import {
  decimalToFixed,
  isoToNanos,
  priceToNumber,
  UNDEF_PRICE,
  UNDEF_STAT_QUANTITY_V2,
  UNDEF_STAT_QUANTITY_V3,
  UNDEF_TIMESTAMP,
} from "./fixed-point";
import { MAX_METADATA_LEN, type Metadata } from "./metadata";
import type { ConsolidatedLevel, DbnRecord, RecordHeaderFields } from "./records";
import type { DbnItem } from "./stream-decoder";

type Json = Record<string, unknown>;

function optionalTs(value: unknown): bigint | null {
  if (value === null || value === undefined) return null;
  const ns = typeof value === "string" && value.includes("T") ? isoToNanos(value) : BigInt(value as string | number);
  return ns === UNDEF_TIMESTAMP ? null : ns;
}

/** A timestamp every record has; pretty_ts writes 0 as null, so null reads back as 0. */
function ts(value: unknown): bigint {
  return optionalTs(value) ?? 0n;
}

function px(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const text = String(value);
  const raw = text.includes(".") ? decimalToFixed(text) : BigInt(text);
  return raw === UNDEF_PRICE ? null : priceToNumber(raw);
}

function int(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?\d+$/.test(value)) return Number(value);
  throw new Error(`expected an integer, got ${JSON.stringify(value)}`);
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function char(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function levels(value: unknown): [ConsolidatedLevel] {
  const level = ((value as Json[] | undefined)?.[0] ?? {}) as Json;
  return [
    {
      bidPx: px(level.bid_px),
      askPx: px(level.ask_px),
      bidSz: int(level.bid_sz),
      askSz: int(level.ask_sz),
      bidPb: int(level.bid_pb),
      askPb: int(level.ask_pb),
    },
  ];
}

/** A date written as YYYYMMDD (plain) or "YYYY-MM-DD" (pretty_ts) to the YYYYMMDD integer. */
function date(value: unknown): number {
  return typeof value === "string" ? Number(value.replaceAll("-", "")) : int(value);
}

function metadataFromJson(o: Json): Metadata {
  const schema = o.schema === null ? null : (o.schema as SchemaName);
  if (schema !== null && !SCHEMAS.includes(schema)) throw new Error(`unknown schema ${String(o.schema)}`);
  const stypeIn = o.stype_in === null ? null : (o.stype_in as STypeName);
  if (stypeIn !== null && !STYPES.includes(stypeIn)) throw new Error(`unknown stype_in ${String(o.stype_in)}`);
  const stypeOut = o.stype_out as STypeName;
  if (!STYPES.includes(stypeOut)) throw new Error(`unknown stype_out ${String(o.stype_out)}`);
  const list = (value: unknown) => (value as string[] | undefined) ?? [];
  return {
    version: int(o.version),
    dataset: str(o.dataset),
    schema,
    start: ts(o.start),
    end: optionalTs(o.end),
    limit: o.limit === null || o.limit === undefined ? null : BigInt(o.limit as string),
    stypeIn,
    stypeOut,
    tsOut: o.ts_out === true,
    symbolCstrLen: int(o.symbol_cstr_len),
    symbols: list(o.symbols),
    partial: list(o.partial),
    notFound: list(o.not_found),
    mappings: ((o.mappings as Json[] | undefined) ?? []).map((m) => ({
      rawSymbol: str(m.raw_symbol),
      intervals: ((m.intervals as Json[] | undefined) ?? []).map((i) => ({
        startDate: date(i.start_date),
        endDate: date(i.end_date),
        symbol: str(i.symbol),
      })),
    })),
  };
}

/** One parsed JSON line to a record, or null for an rtype the decoder does not know. */
export function recordFromJson(o: Json): DbnRecord | null {
  const hd = o.hd as Json | undefined;
  if (!hd || typeof hd !== "object") throw new Error("record without an `hd` header object");
  const header: RecordHeaderFields = {
    rtype: int(hd.rtype),
    publisherId: int(hd.publisher_id),
    instrumentId: int(hd.instrument_id),
    tsEvent: ts(hd.ts_event),
  };
  if ("ts_out" in o) header.tsOut = ts(o.ts_out);
  if (typeof o.symbol === "string") header.symbol = o.symbol;
  switch (header.rtype) {
    case RTYPE.INSTRUMENT_DEF:
      return {
        kind: "definition",
        ...header,
        tsRecv: ts(o.ts_recv),
        minPriceIncrement: px(o.min_price_increment),
        displayFactor: px(o.display_factor),
        expiration: optionalTs(o.expiration),
        activation: optionalTs(o.activation),
        highLimitPrice: px(o.high_limit_price),
        lowLimitPrice: px(o.low_limit_price),
        unitOfMeasureQty: px(o.unit_of_measure_qty),
        strikePrice: px(o.strike_price),
        rawInstrumentId: BigInt(o.raw_instrument_id as string | number),
        underlyingId: int(o.underlying_id),
        contractMultiplier: int(o.contract_multiplier),
        maturityYear: int(o.maturity_year),
        channelId: int(o.channel_id),
        currency: str(o.currency),
        rawSymbol: str(o.raw_symbol),
        exchange: str(o.exchange),
        asset: str(o.asset),
        cfi: str(o.cfi),
        securityType: str(o.security_type),
        underlying: str(o.underlying),
        strikePriceCurrency: str(o.strike_price_currency),
        instrumentClass: str(o.instrument_class),
        securityUpdateAction: str(o.security_update_action),
        maturityMonth: int(o.maturity_month),
        maturityDay: int(o.maturity_day),
      };
    case RTYPE.STATISTICS: {
      // v3 writes the i64 quantity as a string, v2 the i32 as a number.
      const quantity = BigInt(o.quantity as string | number);
      const undefined_ = quantity === UNDEF_STAT_QUANTITY_V3 || quantity === BigInt(UNDEF_STAT_QUANTITY_V2);
      return {
        kind: "statistic",
        ...header,
        tsRecv: ts(o.ts_recv),
        tsRef: optionalTs(o.ts_ref),
        price: px(o.price),
        quantity: undefined_ ? null : Number(quantity),
        sequence: int(o.sequence),
        tsInDelta: int(o.ts_in_delta),
        statType: int(o.stat_type),
        channelId: int(o.channel_id),
        updateAction: int(o.update_action),
        statFlags: int(o.stat_flags),
      };
    }
    case RTYPE.CBBO_1S:
    case RTYPE.CBBO_1M:
      return {
        kind: "cbbo",
        ...header,
        tsRecv: ts(o.ts_recv),
        price: px(o.price),
        size: int(o.size),
        side: char(o.side),
        flags: int(o.flags),
        levels: levels(o.levels),
      };
    case RTYPE.CMBP_1:
    case RTYPE.TCBBO:
      return {
        kind: "cmbp1",
        ...header,
        tsRecv: ts(o.ts_recv),
        price: px(o.price),
        size: int(o.size),
        action: char(o.action),
        side: char(o.side),
        flags: int(o.flags),
        tsInDelta: int(o.ts_in_delta),
        levels: levels(o.levels),
      };
    case RTYPE.SYMBOL_MAPPING:
      return {
        kind: "symbol-mapping",
        ...header,
        stypeIn: int(o.stype_in),
        stypeInSymbol: str(o.stype_in_symbol),
        stypeOut: int(o.stype_out),
        stypeOutSymbol: str(o.stype_out_symbol),
        startTs: optionalTs(o.start_ts),
        endTs: optionalTs(o.end_ts),
      };
    case RTYPE.SYSTEM:
      return { kind: "system", ...header, msg: str(o.msg), code: int(o.code) };
    case RTYPE.ERROR:
      return { kind: "error", ...header, err: str(o.err), code: int(o.code), isLast: int(o.is_last) };
    default:
      return null;
  }
}

/** A line that is not a DBN JSON record, with the byte offset of its start. */
export type MalformedLine = (error: DbnDecodeError) => void;

/**
 * The longest line kept (UTF-16 code units): the metadata cap of binary DBN (`MAX_METADATA_LEN`,
 * a metadata line being the longest), well under V8's longest string (2^29 − 24). A longer line
 * is counted malformed and passed over to its newline rather than held.
 */
export const MAX_JSON_LINE_LENGTH = MAX_METADATA_LEN;

/**
 * A push decoder for JSON lines, the twin of `DbnDecoder`: `push` text or bytes, take the items of
 * the lines it completes; `finish` decodes a last line without a newline. Unknown rtypes are
 * skipped and counted; a malformed line (bad JSON, a missing field, a truncated last line, a line
 * over `maxLineLength`) is counted and handed to `onMalformed` with its byte offset, and decoding
 * goes on — each line stands alone, unlike binary DBN, where a bad length loses the framing.
 */
export class JsonLinesDecoder {
  metadata: Metadata | null = null;
  readonly skipped = new Map<number, number>();
  malformed = 0;

  constructor(
    private readonly onMalformed: MalformedLine = () => undefined,
    private readonly maxLineLength = MAX_JSON_LINE_LENGTH,
  ) {}

  /** The text of the line begun so far; `null` while a line too long is passed over. */
  private pending: string | null = "";
  /** Byte offset of the line begun so far. */
  private consumed = 0;
  private readonly utf8 = new TextDecoder("utf-8");

  push(chunk: string | Uint8Array): DbnItem[] {
    return this.take(typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true }));
  }

  finish(): DbnItem[] {
    const items = this.take(this.utf8.decode());
    if (this.pending !== null && this.pending.trim() !== "") this.decodeLine(this.pending, items);
    this.pending = "";
    return items;
  }

  /** The lines `text` completes; newlines are looked for in `text` alone, so a long line costs one pass over it. */
  private take(text: string): DbnItem[] {
    const items: DbnItem[] = [];
    let from = 0;
    for (let newline = text.indexOf("\n"); newline >= 0; newline = text.indexOf("\n", from)) {
      const tail = text.slice(from, newline);
      if (this.pending !== null && this.pending.length + tail.length > this.maxLineLength) this.tooLong();
      if (this.pending === null) this.consumed += Buffer.byteLength(tail) + 1;
      else {
        const line = this.pending + tail;
        this.decodeLine(line, items);
        this.consumed += Buffer.byteLength(line) + 1;
      }
      this.pending = "";
      from = newline + 1;
    }
    const rest = text.slice(from);
    if (this.pending !== null && this.pending.length + rest.length > this.maxLineLength) this.tooLong();
    if (this.pending === null) this.consumed += Buffer.byteLength(rest);
    else this.pending += rest;
    return items;
  }

  /** The line begun is over the limit: counted malformed, and passed over up to its newline. */
  private tooLong(): void {
    this.malformed++;
    this.onMalformed(new DbnDecodeError(`line longer than ${this.maxLineLength} characters`, this.consumed));
    this.consumed += Buffer.byteLength(this.pending ?? "");
    this.pending = null;
  }

  private decodeLine(line: string, items: DbnItem[]): void {
    if (line.trim() === "") return;
    let item: DbnItem | null;
    try {
      const parsed = JSON.parse(line) as Json;
      if ("version" in parsed && "dataset" in parsed && !("hd" in parsed)) {
        this.metadata = metadataFromJson(parsed);
        item = { kind: "metadata", metadata: this.metadata };
      } else {
        item = recordFromJson(parsed);
        if (!item) {
          const rtype = int((parsed.hd as Json).rtype);
          this.skipped.set(rtype, (this.skipped.get(rtype) ?? 0) + 1);
        }
      }
    } catch (error) {
      this.malformed++;
      this.onMalformed(new DbnDecodeError(`bad JSON line: ${(error as Error).message}`, this.consumed));
      return;
    }
    if (item) items.push(item);
  }
}

/** The items of a JSON-lines stream (text or bytes). */
export async function* readDbnJsonLines(
  source: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  decoder = new JsonLinesDecoder(),
): AsyncGenerator<DbnItem, void, undefined> {
  for await (const chunk of source) yield* decoder.push(chunk);
  yield* decoder.finish();
}
