import { setImmediate } from "node:timers/promises";
import { encodeRecord, type DbnRecord } from "../../ingest/dbn";
import { receiveTime } from "../../ingest/sources/opra/feed-files";

/** A record encoded ahead of its time: its receive time (ns), record type, instrument and DBN bytes. */
export interface Encoded {
  at: bigint;
  rtype: number;
  instrumentId: number;
  bytes: Uint8Array;
}

/** Records pulled and encoded between two yields to the event loop, so due records keep going out. */
const SLICE = 2_048;
/** How often a filler waiting for the horizon looks at the clock again. */
const HORIZON_TICK_MS = 20;

/**
 * A feed's records encoded before they are due — up to `horizon()` on the feed's clock and a byte
 * budget — so a minute's samples (1.4 M records at full size) are ready when their minute ends, as
 * a vendor's gateway has them, rather than generated and encoded after it, on the clock the
 * benchmark measures; and a day's records are not generated in one burst at its start. Fills in
 * slices that yield to the event loop; `peek` and `take` hand them out in order.
 */
export class ReadAhead {
  private readonly queue: Encoded[] = [];
  private head = 0;
  private bytes = 0;
  private readonly queuedByType = new Map<number, number>();
  private done = false;
  private failed: unknown = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private arrived: (() => void) | null = null;
  /** A record pulled from the source beyond the horizon, filled once the clock comes near it. */
  private held: DbnRecord | undefined;

  constructor(
    records: AsyncIterable<DbnRecord>,
    private readonly keep: (record: DbnRecord) => boolean,
    private readonly budgetBytes: number,
    /** The receive time (ns) up to which records may be encoded now. */
    private readonly horizon: () => bigint,
  ) {
    void this.fill(records[Symbol.asyncIterator]());
  }

  /** The next record, without taking it; undefined while none is ready. Throws what the source threw. */
  peek(): Encoded | undefined {
    if (this.failed !== null) throw this.failed;
    return this.queue[this.head];
  }

  take(): void {
    const taken = this.queue[this.head++]!;
    this.bytes -= taken.bytes.length;
    this.queuedByType.set(taken.rtype, this.queuedByType.get(taken.rtype)! - 1);
    if (this.head >= SLICE * 16) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.wake?.();
  }

  /** The source has ended and every record has been taken. */
  get ended(): boolean {
    return this.done && this.head >= this.queue.length;
  }

  /** Every record up to the horizon has been taken: the next one is not due before the clock nears it. */
  get waitingForClock(): boolean {
    return this.head >= this.queue.length && this.held !== undefined;
  }

  /** Records of this type encoded and not yet taken. */
  queued(rtype: number): number {
    return this.queuedByType.get(rtype) ?? 0;
  }

  /** The source has been read up to the horizon (or to its end): no record due now is still to be encoded. */
  get filledToHorizon(): boolean {
    return this.done || this.held !== undefined;
  }

  /** Resolves once a record is ready or the source has ended (or failed). */
  ready(): Promise<void> {
    if (this.peek() !== undefined || this.done) return Promise.resolve();
    return new Promise((resolve) => (this.arrived = resolve));
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private async fill(iterator: AsyncIterator<DbnRecord>): Promise<void> {
    try {
      while (!this.stopped) {
        if (this.bytes >= this.budgetBytes) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        if (this.held && receiveTime(this.held) > this.horizon()) {
          await new Promise((resolve) => setTimeout(resolve, HORIZON_TICK_MS));
          continue;
        }
        for (let i = 0; i < SLICE; i++) {
          let record = this.held;
          this.held = undefined;
          if (!record) {
            const next = await iterator.next();
            if (next.done) {
              this.done = true;
              break;
            }
            record = next.value;
          }
          // Before `keep`: a source is read no further ahead than the clock, even through records passed over.
          if (receiveTime(record) > this.horizon()) {
            this.held = record;
            break;
          }
          if (!this.keep(record)) continue;
          const bytes = encodeRecord(record);
          this.queue.push({ at: receiveTime(record), rtype: record.rtype, instrumentId: record.instrumentId, bytes });
          this.bytes += bytes.length;
          this.queuedByType.set(record.rtype, this.queued(record.rtype) + 1);
        }
        this.arrived?.();
        if (this.done) return;
        await setImmediate();
      }
    } catch (error) {
      this.failed = error;
      this.done = true;
    } finally {
      this.arrived?.();
      if (this.stopped) await iterator.return?.();
    }
  }
}
