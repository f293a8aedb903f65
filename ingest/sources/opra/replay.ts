import { setImmediate } from "node:timers/promises";
import type { DbnDecodeError, DbnRecord } from "../../dbn";
import { DROP_REASONS, OpraEventReader } from "./from-dbn";
import { OpraInstruments } from "./instruments";
import { underlyings } from "../../../src/db/schema";
import type { IngestDatabase } from "../../db/database";
import { columnNames, selectRows } from "../../db/rows";
import { Ingestor, LANES, type LaneName } from "../../pipeline/ingestor";
import { isLogged, type IngestLog } from "../../log";
import { mergeByReceiveTime, paced, readFeedFile, receiveTime } from "./feed-files";

export interface FeedReport {
  records: number;
  accepted: number;
  /** Events at or before the stored positions (already written by an earlier run). */
  skipped: number;
  /**
   * Records that gave no event, by reason (`OpraEventReader`'s, `out-of-range` and `implausible-time`
   * each logged), and events the database refused for their data (`unstorable`, counted in `accepted` too).
   */
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
  options: { feed: string; speed: number; log: IngestLog; signal?: AbortSignal; onTradesCommitted?: () => void },
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
  const reasons = drops.map(([reason, n]) => `${reason} ${n}: ${WHY_DROPPED[reason as keyof typeof WHY_DROPPED] ?? reason}`).join("; ");
  const written = report.accepted - (report.dropped.unstorable ?? 0);
  const stored = written > 0 || report.skipped > 0;
  const parts = [
    stored ? `stored ${written} events (${report.skipped} already stored)` : `stored nothing of ${report.records} records`,
    dropped > 0 ? `dropped ${dropped} records (${reasons})` : null,
    report.malformed > 0 ? `${report.malformed} malformed lines` : null,
  ];
  return { stored, summary: parts.filter((p) => p !== null).join("; ") };
}

/** Every reason a run's report gives for a dropped record: the reader's, and the lanes' own. */
const WHY_DROPPED = { ...DROP_REASONS, unstorable: "the database refused it for its data (each logged)" } as const;

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
 * abort, what was read. `now`, the wall clock, is a live feed's: a record received far from it is
 * dropped (`implausible-time`) and moves no lane's clock.
 */
export async function consumeFeed(
  db: IngestDatabase,
  sources: (ingestor: Ingestor, signal: AbortSignal) => FeedSource[],
  options: { feed: string; log: IngestLog; signal?: AbortSignal; now?: () => Date; onTradesCommitted?: () => void },
): Promise<FeedReport> {
  const started = performance.now();
  const ingestor = await Ingestor.start(db, { feed: options.feed, log: options.log, onTradesCommitted: options.onTradesCommitted });
  const indexes = await selectRows(db.typedQuery, underlyings, ["symbol"], `where ${columnNames(underlyings).assetType} = 'index'`);
  const reader: OpraEventReader = new OpraEventReader(new OpraInstruments(new Set(indexes.map((r) => r.symbol))), {
    now: options.now,
    onDropped: (reason, record, why) => {
      const count = reader.dropped.get(reason) ?? 0;
      if (!isLogged(count)) return;
      options.log({
        event: "ingest_dropped",
        reason,
        count,
        record: record.kind,
        instrumentId: record.instrumentId,
        tsRecv: String(receiveTime(record)),
        why,
      });
    },
  });
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
    dropped: {
      ...Object.fromEntries(reader.dropped),
      ...(ingestor.counts.unstorable > 0 ? { unstorable: ingestor.counts.unstorable } : {}),
    },
    malformed: 0,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * One record into the pipeline: its event, if it gives one; else (heartbeats, dropped records) only
 * its lanes' clock, if its time may move it (`timely`). A promise while the ingestor is full.
 */
function ingest(reader: OpraEventReader, ingestor: Ingestor, record: DbnRecord, lanes: readonly LaneName[]): Promise<void> | undefined {
  const event = reader.read(record);
  if (event) return ingestor.accept(event, lanes);
  if (reader.timely(record)) ingestor.tick(receiveTime(record), lanes);
}
