import { newYorkInstant, todayInNewYork } from "../../../../src/domain/calendar";
import type { IngestDatabase } from "../../../db/database";
import type { IngestLog } from "../../../log";
import type { LaneName } from "../../../pipeline/ingestor";
import type { Positions } from "../../../db/positions";
import { consumeFeed, type FeedReport } from "../replay";
import { liveRecords, type LiveOptions } from "./live-client";
import { LIVE_SCHEMAS, type LiveSchema } from "./protocol";

/**
 * The live sessions the ingestor holds, each its own connection: trades alone, so a minute's 1.4 M
 * samples (110 MB sent at the minute's end) never stand in front of them on the wire; and the rest
 * of the market — definitions, statistics and minute samples — whose lanes share its clock.
 */
export const LIVE_SESSIONS = [
  { schemas: ["definition", "statistics", "cbbo-1m"], lanes: ["quotes", "contracts"] },
  { schemas: ["tcbbo"], lanes: ["trades"] },
] as const satisfies readonly { schemas: readonly LiveSchema[]; lanes: readonly LaneName[] }[];

/**
 * Where a live session replays from: the oldest stored position of its schemas, a schema never
 * written counting from midnight in New York (the day's definitions and statistics arrive before
 * the open). Events at or before a schema's position are dropped on arrival, so an overlap costs
 * nothing.
 */
export function liveStart(positions: Positions, now: Date, schemas: readonly LiveSchema[] = LIVE_SCHEMAS): bigint {
  const midnight = BigInt(newYorkInstant(todayInNewYork(now), 0).getTime()) * 1_000_000n;
  return schemas.map((schema) => positions.get(schema) ?? midnight).reduce((a, b) => (a < b ? a : b));
}

/**
 * Follows the live gateway into the database until `signal` (or a refusal: `LiveRefusedError`).
 * The trades session opens once the market session has finished its intraday replay, so every
 * trade's contract is known from the day's definitions when it arrives.
 */
export function followLive(
  db: IngestDatabase,
  options: Omit<LiveOptions, "start" | "log" | "signal" | "schemas" | "onReplayed"> & {
    feed: string;
    log: IngestLog;
    signal?: AbortSignal;
    now?: () => Date;
    onTradesCommitted?: () => void;
  },
): Promise<FeedReport> {
  const [market, trades] = LIVE_SESSIONS;
  return consumeFeed(
    db,
    (ingestor, signal) => {
      const start = (schemas: readonly LiveSchema[]) => liveStart(ingestor.startPositions, options.now?.() ?? new Date(), schemas);
      let replayed!: () => void;
      const marketReplayed = new Promise<void>((resolve) => (replayed = resolve));
      const session = (schemas: readonly LiveSchema[], onReplayed?: () => void) =>
        liveRecords({ ...options, signal, schemas, start: start(schemas), onReplayed });
      return [
        { records: session(market.schemas, () => replayed()), lanes: market.lanes },
        { records: afterwards(marketReplayed, () => session(trades.schemas), signal), lanes: trades.lanes },
      ];
    },
    { ...options, now: options.now ?? (() => new Date()) },
  );
}

/** The records of a source opened once `ready` resolves (nothing, if `signal` aborts first). */
async function* afterwards<T>(ready: Promise<void>, open: () => AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const aborted = new Promise<boolean>((resolve) => {
    if (signal.aborted) resolve(true);
    signal.addEventListener("abort", () => resolve(true), { once: true });
  });
  if (await Promise.race([ready.then(() => false), aborted])) return;
  yield* open();
}
