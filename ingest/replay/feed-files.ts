import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createZstdDecompress } from "node:zlib";
import { JsonLinesDecoder, readDbnFile, readDbnJsonLines, type DbnItem, type DbnRecord, type MalformedLine } from "../dbn";

/**
 * A file as the vendor's historical API delivers it: DBN (`.dbn`, `.dbn.zst`) or JSON lines
 * (`.json`, `.jsonl`, either `.zst`). A malformed JSON line goes to `onMalformed` and the file goes
 * on; a DBN stream that loses its framing ends the file with an error.
 */
export function readFeedFile(path: string, onMalformed?: MalformedLine): AsyncGenerator<DbnItem, void, undefined> {
  const plain = path.replace(/\.zst$/, "");
  if (!/\.(json|jsonl)$/.test(plain)) return readDbnFile(path);
  const file = createReadStream(path);
  const decoder = new JsonLinesDecoder(onMalformed);
  if (plain === path) return readDbnJsonLines(file, decoder);
  const decompressed = createZstdDecompress();
  pipeline(file, decompressed).catch(() => undefined);
  return readDbnJsonLines(Readable.from(decompressed), decoder);
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
