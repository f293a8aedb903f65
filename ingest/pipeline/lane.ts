import type { FeedPosition } from "../events";
import { isDataError } from "./data-errors";

export interface LaneOptions {
  /** A write takes whole receive times until it holds this many events (a single receive time may hold more). */
  maxBatch: number;
  /** Wait before retrying a failed write, doubling up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  /** After each write: its events, how long it took and the newest receive time it held (ns). */
  onWritten(lane: string, events: number, ms: number, newest: bigint): void;
  onFailed(lane: string, error: unknown, retryInMs: number): void;
  /** An event the database refused alone for its data (`isDataError`): skipped, not stored, never retried. */
  onRefused(lane: string, event: { position: FeedPosition }, error: unknown): void;
  /**
   * Least wall time from one write's start to the next (0: none). A trickle of events (trades at
   * real time) is then written a few times a second in batches, not one transaction per event,
   * whose round trips and commits cost the machine more than the events.
   */
  minIntervalMs?: number;
}

/**
 * One writer of a kind of event: its queue in receive-time order and at most one write in flight,
 * on a connection of its own (trades keep flowing while a minute of quotes is written). A write
 * takes the queue's complete receive times (those the feed has moved past, or all when settled),
 * so a batch never splits one and a restart resumes after whole ones. A failed write is retried
 * with the same events until it succeeds: nothing is dropped while the database is away. A write
 * the database refuses for its data is not retried: its bad events are found and skipped.
 */
export class Lane<E extends { position: FeedPosition }> {
  private queue: E[] = [];
  private writing: Promise<void> | null = null;
  private lastStart = -Infinity;
  private paced = true;

  constructor(
    readonly name: string,
    /** `through`: when set, the batch's newest receive time may be incomplete; positions stop before it. */
    private readonly write: (batch: E[], through: bigint | undefined) => Promise<unknown>,
    private readonly options: LaneOptions,
    /** Whether an event waits where it is, and every one after it (the next session's, until the stored one is rolled). */
    private readonly holds: (event: E) => boolean = () => false,
  ) {}

  get queued(): number {
    return this.queue.length;
  }

  get busy(): Promise<void> | null {
    return this.writing;
  }

  /** The next event to write, if any. */
  get head(): E | undefined {
    return this.queue[0];
  }

  /** Whether the next event to write waits (`holds`). */
  get held(): boolean {
    return this.queue.length > 0 && this.holds(this.queue[0]!);
  }

  /** Writes from now on as soon as the last one is done (the ingestor is draining). */
  stopPacing(): void {
    this.paced = false;
  }

  push(event: E): void {
    this.queue.push(event);
  }

  /**
   * Starts a write if none is in flight: of the receive times before `clock` (complete), or — the
   * feed quiet (`settled`) or ended (`ended`) — of every queued one; never of a held event or any
   * after it (a receive time is held by its first event). Only at the end is the newest known
   * complete; after a quiet spell more of it may still come, so the write leaves the position
   * before it and those late events are written when they arrive.
   */
  pump(clock: bigint, settled: boolean, next: () => void, ended = false): void {
    if (this.writing || this.queue.length === 0) return;
    if (this.paced && performance.now() - this.lastStart < (this.options.minIntervalMs ?? 0)) return;
    const batch = this.takeComplete(clock, settled || ended);
    if (batch.length === 0) return;
    const newest = batch.at(-1)!.position.tsRecv;
    const through = ended || newest < clock ? undefined : newest - 1n;
    this.lastStart = performance.now();
    this.writing = this.writeUntilDone(batch, through).finally(() => {
      this.writing = null;
      next();
    });
  }

  private takeComplete(clock: bigint, settled: boolean): E[] {
    let end = 0;
    while (end < this.queue.length) {
      const at = this.queue[end]!.position.tsRecv;
      if (!settled && at >= clock) break;
      if (end >= this.options.maxBatch || this.holds(this.queue[end]!)) break;
      while (end < this.queue.length && this.queue[end]!.position.tsRecv === at) end++;
    }
    return this.queue.splice(0, end);
  }

  /**
   * Writes a batch until it is stored. A failure of the database (away, a deadlock…) is retried with
   * the same events, 0.5 s doubling to the cap; one of the data (`isDataError`), which no retry
   * changes, has the batch written in halves, each the same way, down to the events refused alone,
   * which are skipped (`onRefused`): the rest is stored and the lane goes on.
   */
  private async writeUntilDone(batch: E[], through: bigint | undefined): Promise<void> {
    let wait = this.options.retryMs;
    for (;;) {
      const started = performance.now();
      try {
        await this.write(batch, through);
        this.options.onWritten(this.name, batch.length, performance.now() - started, batch.at(-1)!.position.tsRecv);
        return;
      } catch (error) {
        if (isDataError(error)) return this.isolate(batch, through, error);
        this.options.onFailed(this.name, error, wait);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, this.options.maxRetryMs);
      }
    }
  }

  /**
   * A batch refused for its data, written as two. A receive time with events in both halves is not
   * complete after the first: its positions stop before it (a crash in between replays it whole).
   */
  private async isolate(batch: E[], through: bigint | undefined, error: unknown): Promise<void> {
    if (batch.length === 1) {
      this.options.onRefused(this.name, batch[0]!, error);
      return;
    }
    const first = batch.slice(0, batch.length >> 1);
    const second = batch.slice(first.length);
    const continued = new Set(second.map((e) => e.position.tsRecv));
    let firstThrough = through;
    for (const { position } of first) {
      if (continued.has(position.tsRecv) && (firstThrough === undefined || position.tsRecv - 1n < firstThrough)) {
        firstThrough = position.tsRecv - 1n;
      }
    }
    await this.writeUntilDone(first, firstThrough);
    await this.writeUntilDone(second, through);
  }
}
