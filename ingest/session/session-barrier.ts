import { addDays, newYorkInstant, sessionOnOrAfter } from "../../src/domain/calendar";
import type { IngestDatabase } from "../db/database";
import { marketSession } from "../db/market-session";
import { writeBaselines } from "../screener/baselines";
import { isRolled, rollSession } from "./roll-session";

const nextSession = (session: string) => sessionOnOrAfter(addDays(session, 1));

/**
 * The line between the sessions of a feed: a trade or quote of a session after the open one (its
 * execution or sample time from the New York midnight of the next session on) waits in its lane
 * until the stored session has been rolled, since the roll reads what that session closed on (its
 * volumes, marks and bar), which the next session's writes replace. The open session is the stored
 * one until it is rolled (normally at 16:30 ET, by `followSessionRolls`), then the next. This is
 * for a feed that reaches the next session first: an ingestor restarted after a night away, a
 * replay of several sessions.
 */
export class SessionBarrier {
  /** Epoch ms from which an event is of a later session than the open one. */
  private holdFrom = Infinity;
  private rolling: Promise<void> | null = null;
  private retrying: Promise<void> | null = null;

  private constructor(
    /** The market's session as stored (`market_state`), and whether it has been rolled. */
    private stored: { session: string; rolled: boolean } | null,
    /** The latest session whose events are written now. */
    private open: string | null,
  ) {
    this.holdAfter(open);
  }

  /** The barrier of the market stored in `db`. */
  static async of(db: IngestDatabase): Promise<SessionBarrier> {
    const session = await marketSession(db.typedQuery);
    if (session === undefined) return new SessionBarrier(null, null);
    const rolled = await isRolled(db.typedQuery, session);
    return new SessionBarrier({ session, rolled }, rolled ? nextSession(session) : session);
  }

  /** Whether an event of this instant (a trade's execution, a sample's minute) waits for the roll. */
  holds(eventMs: number): boolean {
    return eventMs >= this.holdFrom;
  }

  /** A roll under way: nothing is written meanwhile. */
  get rollingNow(): boolean {
    return this.rolling !== null;
  }

  /** The roll under way, or the wait after one that failed. */
  get busy(): Promise<void> | null {
    return this.rolling ?? this.retrying;
  }

  /** Whether the held events may be let through now (`pass`): none is under way and none failed within the retry delay. */
  get ready(): boolean {
    return this.holdFrom !== Infinity && this.rolling === null && this.retrying === null;
  }

  /** The quotes lane wrote a sample of `session`: a later one than stored is the market's now, not rolled. */
  moved(session: string): void {
    if (this.stored !== null && session <= this.stored.session) return;
    this.stored = { session, rolled: false };
    if (this.open === null || session > this.open) this.holdAfter((this.open = session));
  }

  /**
   * Lets the next session's events through: the stored session rolled first if it is open and
   * not rolled (once: the 16:30 follower may have done it meanwhile, and the steps done are
   * skipped), then the next session opened. When the feed skipped the open session (no quotes of
   * it stored: nothing to roll), the next session's baselines are written here, as that session's
   * roll would have. A failed roll or write is retried after `retryMs`.
   */
  pass(db: IngestDatabase, log: (fields: Record<string, unknown>) => void, retryMs: number): Promise<void> {
    const stored = this.stored;
    const open = this.open!;
    const next = nextSession(open);
    if (stored === null) {
      this.holdAfter((this.open = next));
      return Promise.resolve();
    }
    const skipped = stored.rolled || stored.session !== open;
    const started = performance.now();
    const done = (fields: Record<string, unknown>) => {
      this.holdAfter((this.open = next));
      log({ ...fields, ms: Math.round(performance.now() - started), before: "next_session" });
    };
    this.rolling ??= (
      skipped
        ? writeBaselines(db, next).then(() => done({ event: "session_skipped", session: open, baselines: next }))
        : rollSession(db, stored.session).then((steps) => {
            stored.rolled = true;
            if (steps.length > 0) done({ event: "session_rolled", session: open, steps });
            else this.holdAfter((this.open = next));
          })
    )
      .catch((error: unknown) => {
        log({ event: "session_roll_failed", session: open, error: error instanceof Error ? error.message : String(error) });
        this.retrying = new Promise<void>((resolve) => setTimeout(resolve, retryMs)).then(() => {
          this.retrying = null;
        });
      })
      .finally(() => {
        this.rolling = null;
      });
    return this.rolling;
  }

  /** Events from the New York midnight of the session after `session` wait. */
  private holdAfter(session: string | null): void {
    this.holdFrom = session === null ? Infinity : newYorkInstant(nextSession(session), 0).getTime();
  }
}
