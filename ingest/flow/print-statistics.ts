/** A session's print counts at which the planner's statistics of `flow_prints` are refreshed. */
const THRESHOLDS = [1_000, 10_000, 100_000, 1_000_000];

/**
 * Keeps the planner's statistics of `flow_prints` up with a session that is filling. Until ANALYZE
 * runs, the newest session's date lies beyond the stored histogram and the planner takes it for
 * nearly empty: one ticker's newest prints are then looked for by walking the whole session's
 * premium index (4.7 s at full size, 1.8 ms once analyzed). Autovacuum analyzes after a tenth of
 * the table has changed, hours into a session — later still while it vacuums the minute's quote
 * updates. So the ingestor analyzes as each session's prints pass 1,000, 10,000, 100,000 and a
 * million (about a second each at full size, on a connection of its own, never in a lane's way).
 */
export class PrintStatistics {
  private readonly counts = new Map<string, number>();
  private running: Promise<void> | null = null;

  constructor(
    private readonly analyze: () => Promise<void>,
    private readonly onFailed: (error: unknown) => void,
  ) {}

  /** Counts a written batch's prints by session; starts an ANALYZE when one passes a threshold. */
  written(sessions: readonly string[]): void {
    let crossed = false;
    const batch = new Map<string, number>();
    for (const session of sessions) batch.set(session, (batch.get(session) ?? 0) + 1);
    for (const [session, added] of batch) {
      const before = this.counts.get(session) ?? 0;
      this.counts.set(session, before + added);
      crossed ||= THRESHOLDS.some((t) => before < t && before + added >= t);
    }
    if (crossed && !this.running) {
      this.running = this.analyze()
        .catch(this.onFailed)
        .finally(() => (this.running = null));
    }
  }

  /** Waits for an ANALYZE under way (a stopping ingestor). */
  async settled(): Promise<void> {
    await this.running;
  }
}
