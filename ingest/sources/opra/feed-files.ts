import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createZstdDecompress } from "node:zlib";
import {
  JsonLinesDecoder,
  readDbnFile,
  readDbnJsonLines,
  RTYPE,
  STYPES,
  type DbnItem,
  type DbnRecord,
  type MalformedLine,
  type Metadata,
  type SymbolMappingRecord,
} from "../../dbn";

/**
 * A file as the vendor's historical API delivers it: DBN (`.dbn`, `.dbn.zst`) or JSON lines
 * (`.json`, `.jsonl`, either `.zst`). A malformed JSON line goes to `onMalformed` and the file goes
 * on; a DBN stream that loses its framing ends the file with an error.
 */
export function readFeedFile(path: string, onMalformed?: MalformedLine): AsyncGenerator<DbnItem, void, undefined> {
  const plain = path.replace(/\.zst$/, "");
  if (!/\.(json|jsonl)$/.test(plain)) return withSymbolMappings(readDbnFile(path));
  const file = createReadStream(path);
  const decoder = new JsonLinesDecoder(onMalformed);
  if (plain === path) return withSymbolMappings(readDbnJsonLines(file, decoder));
  const decompressed = createZstdDecompress();
  pipeline(file, decompressed).catch(() => undefined);
  return withSymbolMappings(readDbnJsonLines(Readable.from(decompressed), decoder));
}

const NS_PER_MS = 1_000_000n;
const DIGITS = /^\d+$/;

/**
 * A file's items with its metadata's symbol mappings as mapping records, each placed before the
 * first record received on or after its interval's first day (UTC, as DBN dates are): so a file
 * without definitions — trades alone, as a user downloads them for a few symbols — names its
 * instruments, and a multi-day file's reassigned ids name the right contract each day. A mapping
 * between a raw symbol and instrument ids is read whichever way it points (`stype_in` raw symbol to
 * ids, or ids to raw symbols); the reader keeps those whose raw symbol is an option's.
 */
export async function* withSymbolMappings(items: AsyncIterable<DbnItem>): AsyncGenerator<DbnItem, void, undefined> {
  let pending: SymbolMappingRecord[] = [];
  for await (const item of items) {
    if (item.kind === "metadata") {
      pending = mappingRecords(item.metadata).sort((a, b) => (a.tsEvent < b.tsEvent ? -1 : a.tsEvent > b.tsEvent ? 1 : 0));
    } else {
      const at = receiveTime(item);
      let due = 0;
      while (due < pending.length && pending[due]!.tsEvent <= at) yield pending[due++]!;
      if (due > 0) pending = pending.slice(due);
    }
    yield item;
  }
}

function mappingRecords(metadata: Metadata): SymbolMappingRecord[] {
  const records: SymbolMappingRecord[] = [];
  for (const mapping of metadata.mappings) {
    for (const interval of mapping.intervals) {
      const [id, raw] = DIGITS.test(interval.symbol) ? [interval.symbol, mapping.rawSymbol] : [mapping.rawSymbol, interval.symbol];
      if (!DIGITS.test(id) || Number(id) > 0xffff_ffff) continue;
      const day = interval.startDate;
      const startMs = Date.UTC(Math.floor(day / 10_000), (Math.floor(day / 100) % 100) - 1, day % 100);
      if (!Number.isFinite(startMs)) continue;
      records.push({
        kind: "symbol-mapping",
        rtype: RTYPE.SYMBOL_MAPPING,
        publisherId: 0,
        instrumentId: Number(id),
        tsEvent: BigInt(startMs) * NS_PER_MS,
        stypeIn: STYPES.indexOf("raw_symbol"),
        stypeInSymbol: raw,
        stypeOut: STYPES.indexOf("raw_symbol"),
        stypeOutSymbol: raw,
        startTs: null,
        endTs: null,
      });
    }
  }
  return records;
}

/** The instant a record is ordered by: its receive time where it has one, else its event time. */
export function receiveTime(record: DbnRecord): bigint {
  return "tsRecv" in record ? record.tsRecv : record.tsEvent;
}

/**
 * The records of several streams (one file per schema, as the historical API gives them) in one
 * receive-time order, as the live gateway interleaves them: each stream is in that order already,
 * so the earliest head is taken each time; ties keep the streams' order (definitions first when
 * listed first). Metadata items are dropped.
 */
export async function* mergeByReceiveTime(streams: AsyncIterable<DbnItem>[]): AsyncGenerator<DbnRecord, void, undefined> {
  const iterators = streams.map((s) => s[Symbol.asyncIterator]());
  const nextRecord = async (i: number): Promise<DbnRecord | null> => {
    for (;;) {
      const { value, done } = await iterators[i]!.next();
      if (done) return null;
      if (value.kind !== "metadata") return value;
    }
  };
  const heads = await Promise.all(iterators.map((_, i) => nextRecord(i)));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head && (best < 0 || receiveTime(head) < receiveTime(heads[best]!))) best = i;
    }
    if (best < 0) return;
    yield heads[best]!;
    heads[best] = await nextRecord(best);
  }
}

/**
 * The records at a pace: `speed` times the feed's own (its receive times from the first record's
 * on, laid from the moment of the first); every record at once when `speed` is Infinity.
 */
export async function* paced(records: AsyncIterable<DbnRecord>, speed: number): AsyncGenerator<DbnRecord, void, undefined> {
  let origin: { feedNs: bigint; wallMs: number } | null = null;
  for await (const record of records) {
    if (Number.isFinite(speed)) {
      origin ??= { feedNs: receiveTime(record), wallMs: performance.now() };
      const due = origin.wallMs + Number(receiveTime(record) - origin.feedNs) / 1e6 / speed;
      const wait = due - performance.now();
      if (wait > 2) await new Promise((resolve) => setTimeout(resolve, wait));
    }
    yield record;
  }
}
