import { setImmediate } from "node:timers/promises";
import type { DbnDecodeError, DbnRecord } from "../dbn";
import { DROP_REASONS, OpraEventReader, type DroppedReason } from "../opra/from-dbn";
import { OpraInstruments } from "../opra/instruments";
import type { IngestDatabase } from "../pipeline/database";
import { Ingestor, LANES, type IngestLog, type LaneName } from "../pipeline/ingestor";
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
    () => [{ records: paced(mergeByReceiveTime(paths.map((path) => readFeedFile(path, onMalformed(path)))), options.speed) }],
    options,
  );
  return { ...report, malformed };
}

/**
 * A replay's outcome in words, for its final line: what was stored and why records were dropped.
 * `stored` is false when the files gave nothing that is or was stored (a rerun that finds
 * everything already stored did its job).
 */
export function replayOutcome(report: FeedReport): { stored: boolean; summary: string } {
  const drops = Object.entries(report.dropped).filter(([, n]) => n > 0);
  const dropped = drops.reduce((n, [, count]) => n + count, 0);
  const reasons = drops.map(([reason, n]) => `${reason} ${n}: ${DROP_REASONS[reason as DroppedReason] ?? reason}`).join("; ");
  const stored = report.accepted > 0 || report.skipped > 0;
  const parts = [
    stored ? `stored ${report.accepted} events (${report.skipped} already stored)` : `stored nothing of ${report.records} records`,
    dropped > 0 ? `dropped ${dropped} records (${reasons})` : null,
    report.malformed > 0 ? `${report.malformed} malformed lines` : null,
  ];
  return { stored, summary: parts.filter((p) => p !== null).join("; ") };
}

/** Malformed lines logged one by one; past this many only counted (a wrong file would flood the log). */
const MALFORMED_LOGGED = 100;

/** Records read between two turns of the event loop: a minute's 1.4 M samples never hold the trades' writes for long. */
const YIELD_EVERY = 2_048;

/** A stream of the feed's records and the lanes whose clock it moves (all of them, for a single stream). */
export interface FeedSource {
  records: AsyncIterable<DbnRecord>;
  lanes?: readonly LaneName[];
}

/**
 * Runs a feed's records through the pipeline: read as OPRA events, written by an ingestor started
 * on the stored positions (`sources` is given it, to resume after them, and a signal that stops
 * every source once one has failed). At the end of the records everything is written; after an
 * abort, what was read.
 */
export async function consumeFeed(
  db: IngestDatabase,
  sources: (ingestor: Ingestor, signal: AbortSignal) => FeedSource[],
  options: { feed: string; log: IngestLog; signal?: AbortSignal },
): Promise<FeedReport> {
  const started = performance.now();
  const ingestor = await Ingestor.start(db, { feed: options.feed, log: options.log });
  const indexes = await db.typedQuery(`select symbol from underlyings where asset_type = 'index'`);
  const reader = new OpraEventReader(new OpraInstruments(new Set(indexes.rows.map((r) => r.symbol as string))));
  const failing = new AbortController();
  const stop = options.signal ? AbortSignal.any([options.signal, failing.signal]) : failing.signal;
  let count = 0;
  const consume = async ({ records, lanes = LANES }: FeedSource) => {
    let read = 0;
    for await (const record of records) {
      if (stop.aborted) break;
      count++;
      const full = ingest(reader, ingestor, record, lanes);
      if (full) await full;
      // A buffered run of records is taken in microtasks alone: let the other source and the lanes' I/O in between slices.
      else if (++read % YIELD_EVERY === 0) await setImmediate();
    }
  };
  try {
    // Every source ends before the ingestor drains: one that fails stops the others.
    const ended = await Promise.allSettled(
      sources(ingestor, stop).map((source) =>
        consume(source).catch((error: unknown) => {
          failing.abort();
          throw error;
        }),
      ),
    );
    const failed = ended.find((e) => e.status === "rejected");
    if (failed) throw failed.reason;
    await ingestor.drain({ endOfFeed: !stop.aborted });
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

/**
 * One record into the pipeline: its event, if it gives one; else (a heartbeat, a record that gives
 * no event) only its lanes' clock. A symbol mapping names an instrument and moves no clock: its time
 * is not a receive time of the feed. A promise while the ingestor is full.
 */
function ingest(reader: OpraEventReader, ingestor: Ingestor, record: DbnRecord, lanes: readonly LaneName[]): Promise<void> | undefined {
  const event = reader.read(record);
  if (event) return ingestor.accept(event, lanes);
  if (record.kind !== "symbol-mapping") ingestor.tick(receiveTime(record), lanes);
}
