import { newYorkInstant, todayInNewYork } from "../../src/domain/calendar";
import type { IngestDatabase } from "../pipeline/database";
import type { IngestLog } from "../pipeline/ingestor";
import type { Positions } from "../pipeline/positions";
import { consumeFeed, type FeedReport } from "../replay/replay";
import { liveRecords, type LiveOptions } from "./live-client";
import { LIVE_SCHEMAS } from "./protocol";

/**
 * Where a live session replays from: the oldest stored position of the subscribed schemas, a
 * schema never written counting from midnight in New York (the day's definitions and statistics
 * arrive before the open). Events at or before a schema's position are dropped on arrival, so an
 * overlap costs nothing.
 */
export function liveStart(positions: Positions, now: Date): bigint {
  const midnight = BigInt(newYorkInstant(todayInNewYork(now), 0).getTime()) * 1_000_000n;
  return LIVE_SCHEMAS.map((schema) => positions.get(schema) ?? midnight).reduce((a, b) => (a < b ? a : b));
}

/** Follows the live gateway into the database until `signal` (or a refused key: `LiveAuthError`). */
export function followLive(
  db: IngestDatabase,
  options: Omit<LiveOptions, "start" | "log" | "signal"> & { feed: string; log: IngestLog; signal?: AbortSignal; now?: () => Date },
): Promise<FeedReport> {
  return consumeFeed(
    db,
    (ingestor) => liveRecords({ ...options, start: liveStart(ingestor.startPositions, options.now?.() ?? new Date()) }),
    options,
  );
}
