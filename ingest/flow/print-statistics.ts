/** A session's print counts at which the planner's statistics of `flow_prints` are refreshed. */
const THRESHOLDS = [1_000, 10_000, 100_000, 1_000_000];

/**
 * Keeps the planner's statistics of a filling session's partition of `flow_prints` up with it.
 * Until ANALYZE runs, the planner knows nothing of how the session's prints spread over tickers
 * and premiums, and a wrong guess walks a whole index (one ticker's newest prints by the session's
 * premium index: 4.7 s at full size, 1.8 ms once analyzed). Autovacuum analyzes after a tenth of
 * the partition has changed, and late while it vacuums the minute's quote updates. So the ingestor
 * analyzes a session's partition as its prints pass 1,000, 10,000, 100,000 and a million (on a
 * connection of its own, never in a lane's way).
 */
export class PrintStatistics {
  private readonly counts = new Map<string, number>();
  private running: Promise<void> | null = null;

  constructor(
    /** Analyzes the partitions of these sessions. */
    private readonly analyze: (sessions: string[]) => Promise<void>,
    private readonly onFailed: (error: unknown) => void,
  ) {}

  /** Counts a written batch's prints by session; starts an ANALYZE when one passes a threshold. */
  written(sessions: readonly string[]): void {
    const crossed: string[] = [];
    const batch = new Map<string, number>();
    for (const session of sessions) batch.set(session, (batch.get(session) ?? 0) + 1);
    for (const [session, added] of batch) {
      const before = this.counts.get(session) ?? 0;
      this.counts.set(session, before + added);
      if (THRESHOLDS.some((t) => before < t && before + added >= t)) crossed.push(session);
    }
    if (crossed.length > 0 && !this.running) {
      this.running = this.analyze(crossed)
        .catch(this.onFailed)
        .finally(() => (this.running = null));
    }
  }

  /** Waits for an ANALYZE under way (a stopping ingestor). */
  async settled(): Promise<void> {
    await this.running;
  }
}
