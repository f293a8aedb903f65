import { addDays, newYorkInstant, sessionOnOrAfter } from "../../src/domain/calendar";
import type { IngestDatabase } from "../pipeline/database";
import { isRolled, rollSession } from "./roll-session";

/**
 * The line between the stored session and the next in the feed, while the stored one is not
 * rolled: a trade or quote of a later session waits behind it until the roll has read the session
 * it ends (its volumes, marks and bar would otherwise be the next session's by then). The roll is
 * normally done at 16:30 ET (`followSessionRolls`); this is for a feed that reaches the next
 * session first — an ingestor restarted after a night away, a replay of several sessions.
 */
export class SessionBarrier {
  /** Epoch ms from which an event is of a later session than the stored one; Infinity while none is held. */
  private holdFrom = Infinity;
  private rolling: Promise<void> | null = null;

  private constructor(
    private session: string | null,
    rolled: boolean,
  ) {
    this.setHold(rolled);
  }

  /** The barrier of the market stored in `db`. */
  static async of(db: IngestDatabase): Promise<SessionBarrier> {
    const { rows } = await db.typedQuery(`select session_date::text as d from market_state where id = 1`);
    const session = (rows[0]?.d as string | undefined) ?? null;
    return new SessionBarrier(session, session === null || (await isRolled(db.typedQuery, session)));
  }

  /** Whether an event of this instant (a trade's execution, a sample's minute) waits for the roll. */
  holds(eventMs: number): boolean {
    return eventMs >= this.holdFrom;
  }

  get busy(): Promise<void> | null {
    return this.rolling;
  }

  /** A roll may start: events may be held for it and none is under way. */
  get ready(): boolean {
    return this.holdFrom !== Infinity && this.rolling === null;
  }

  /** The quotes lane wrote a sample of `session`: a later session than the stored one is the market's now, not rolled. */
  moved(session: string): void {
    if (this.session !== null && session <= this.session) return;
    this.session = session;
    this.setHold(false);
  }

  /**
   * Rolls the stored session (once: the 16:30 follower may have done it meanwhile, and the steps
   * done are skipped); the events held go on after it. After a failure it stays busy for
   * `retryMs`, then may be started again.
   */
  roll(db: IngestDatabase, log: (fields: Record<string, unknown>) => void, retryMs: number): Promise<void> {
    const session = this.session!;
    const started = performance.now();
    this.rolling ??= rollSession(db, session)
      .then((steps) => {
        this.setHold(true);
        if (steps.length > 0)
          log({ event: "session_rolled", session, steps, ms: Math.round(performance.now() - started), before: "next_session" });
      })
      .catch(async (error: unknown) => {
        log({ event: "session_roll_failed", session, error: error instanceof Error ? error.message : String(error) });
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      })
      .finally(() => {
        this.rolling = null;
      });
    return this.rolling;
  }

  /** Events from the New York midnight of the session after the stored one wait while it is not rolled. */
  private setHold(rolled: boolean): void {
    this.holdFrom = rolled || this.session === null ? Infinity : newYorkInstant(sessionOnOrAfter(addDays(this.session, 1)), 0).getTime();
  }
}
