import type { FeedPosition } from "../events";

export interface LaneOptions {
  /** A write takes whole receive times until it holds this many events (a single receive time may hold more). */
  maxBatch: number;
  /** Wait before retrying a failed write, doubling up to `maxRetryMs`. */
  retryMs: number;
  maxRetryMs: number;
  /** After each write: its events, how long it took and the newest receive time it held (ns). */
  onWritten(lane: string, events: number, ms: number, newest: bigint): void;
  onFailed(lane: string, error: unknown, retryInMs: number): void;
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
 * with the same events until it succeeds: nothing is dropped while the database is away.
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

  private async writeUntilDone(batch: E[], through: bigint | undefined): Promise<void> {
    let wait = this.options.retryMs;
    for (;;) {
      const started = performance.now();
      try {
        await this.write(batch, through);
        this.options.onWritten(this.name, batch.length, performance.now() - started, batch.at(-1)!.position.tsRecv);
        return;
      } catch (error) {
        this.options.onFailed(this.name, error, wait);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, this.options.maxRetryMs);
      }
    }
  }
}
