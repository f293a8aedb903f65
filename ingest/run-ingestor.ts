import type { FundamentalsProvider } from "../src/vendors/fundamentals-provider";
import { followFundamentals } from "./fundamentals/refresh-fundamentals";
import { followLive } from "./sources/opra/live/follow-live";
import type { IngestDatabase } from "./db/database";
import type { IngestLog } from "./log";
import { replayFiles, type FeedReport } from "./sources/opra/replay";
import { followScreener, refreshMovedPartitions } from "./screener/follow-screener";
import { followSessionRolls } from "./session/follow-sessions";

/** What the ingestor reads: vendor files, or the live gateway (`followLive`'s options). */
export type FeedSpec =
  | { kind: "replay"; feed: string; files: readonly string[]; speed: number }
  | ({ kind: "live" } & Omit<Parameters<typeof followLive>[1], "log" | "signal">);

export interface RunOptions {
  log: IngestLog;
  signal?: AbortSignal;
  /** The calendars' and fundamentals' vendor, when one is configured. */
  fundamentals?: { provider: FundamentalsProvider; callsPerMinute: number };
  /** After each committed batch of trades (the stream shards' wake-up, `streamWaker`). */
  onTradesCommitted?: () => void;
}

/**
 * The ingestor, one assembly whatever runs it (`npm run ingest`, `npm run dev`'s moving market):
 * the feed into the lanes and, beside it on connections of their own, the derived data that follows
 * what the lanes commit — the screener's partitions, each live session's roll at 16:30 (a replay's
 * sessions are rolled as the feed passes from one to the next: the session barrier) and, with a
 * vendor, the day's calendars and fundamentals. A replay read to its end leaves the screener current.
 */
export async function runIngestor(db: IngestDatabase, feed: FeedSpec, options: RunOptions): Promise<FeedReport> {
  const { log, signal, onTradesCommitted } = options;
  const derived = new AbortController();
  const clock = feed.kind === "live" ? feed.now : undefined;
  const following = Promise.all([
    followScreener(db, { log, signal: derived.signal }),
    feed.kind === "live" && followSessionRolls(db, { log, signal: derived.signal, now: clock }),
    options.fundamentals &&
      followFundamentals(db, options.fundamentals.provider, {
        log,
        signal: derived.signal,
        callsPerMinute: options.fundamentals.callsPerMinute,
        now: clock,
      }),
  ]);
  let report: FeedReport;
  try {
    report =
      feed.kind === "replay"
        ? await replayFiles(db, feed.files, { feed: feed.feed, speed: feed.speed, log, signal, onTradesCommitted })
        : await followLive(db, { ...feed, log, signal, onTradesCommitted });
  } finally {
    derived.abort();
    await following;
  }
  if (feed.kind === "replay" && !signal?.aborted) await refreshMovedPartitions(db, log);
  return report;
}
