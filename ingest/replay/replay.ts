import type { DbnDecodeError, DbnRecord } from "../dbn";
import { OpraEventReader } from "../opra/from-dbn";
import { OpraInstruments } from "../opra/instruments";
import type { IngestDatabase } from "../pipeline/database";
import { Ingestor, type IngestLog } from "../pipeline/ingestor";
import { mergeByReceiveTime, paced, readFeedFile, receiveTime } from "./feed-files";

export interface FeedReport {
  records: number;
  accepted: number;
  /** Events at or before the stored positions (already written by an earlier run). */
  skipped: number;
  dropped: Record<string, number>;
  /** Lines of JSON-lines files that were not records (each logged, up to `MALFORMED_LOGGED`). */
  malformed: number;
  seconds: number;
}

/**
 * Replays vendor files through the ingestion pipeline: merged in receive-time order, paced at
 * `speed` × the feed's time (Infinity: as fast as the database takes them), read as OPRA events,
 * written by the ingestor. A rerun resumes after the stored positions; an abort stops reading and
 * writes what was read.
 */
export async function replayFiles(
  db: IngestDatabase,
  paths: readonly string[],
  options: { feed: string; speed: number; log: IngestLog; signal?: AbortSignal },
): Promise<FeedReport> {
  let malformed = 0;
  const onMalformed = (path: string) => (error: DbnDecodeError) => {
    if (++malformed <= MALFORMED_LOGGED) options.log({ event: "feed_malformed", file: path, offset: error.offset, error: error.message });
  };
  const report = await consumeFeed(
    db,
    () => paced(mergeByReceiveTime(paths.map((path) => readFeedFile(path, onMalformed(path)))), options.speed),
    options,
  );
  return { ...report, malformed };
}

/** Malformed lines logged one by one; past this many only counted (a wrong file would flood the log). */
const MALFORMED_LOGGED = 100;

/**
 * Runs a feed's records through the pipeline: read as OPRA events, written by an ingestor started
 * on the stored positions (`records` is given it, to resume after them). At the end of the records
 * everything is written; after an abort, what was read.
 */
export async function consumeFeed(
  db: IngestDatabase,
  records: (ingestor: Ingestor) => AsyncIterable<DbnRecord>,
  options: { feed: string; log: IngestLog; signal?: AbortSignal },
): Promise<FeedReport> {
  const started = performance.now();
  const ingestor = await Ingestor.start(db, { feed: options.feed, log: options.log });
  const indexes = await db.typedQuery(`select symbol from underlyings where asset_type = 'index'`);
  const reader = new OpraEventReader(new OpraInstruments(new Set(indexes.rows.map((r) => r.symbol as string))));
  let count = 0;
  try {
    for await (const record of records(ingestor)) {
      if (options.signal?.aborted) break;
      count++;
      const full = ingest(reader, ingestor, record);
      if (full) await full;
    }
    await ingestor.drain({ endOfFeed: !options.signal?.aborted });
  } catch (error) {
    await ingestor.drain({ endOfFeed: false });
    throw error;
  }
  return {
    records: count,
    accepted: ingestor.counts.accepted,
    skipped: ingestor.counts.skipped,
    dropped: Object.fromEntries(reader.dropped),
    malformed: 0,
    seconds: (performance.now() - started) / 1000,
  };
}

/** One record into the pipeline: its event, if it gives one; else (heartbeats, mappings) only the feed's clock. A promise while the ingestor is full. */
function ingest(reader: OpraEventReader, ingestor: Ingestor, record: DbnRecord): Promise<void> | undefined {
  const event = reader.read(record);
  if (event) return ingestor.accept(event);
  ingestor.tick(receiveTime(record));
}
