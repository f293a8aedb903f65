import { describe, expect, it } from "vitest";
import { PrintStatistics } from "../../ingest/flow/print-statistics";

const sessions = (date: string, n: number) => Array<string>(n).fill(date);

describe("the planner's statistics of a filling session", () => {
  it("are refreshed as a session's prints pass 1,000, 10,000, 100,000 and a million, once each, whatever the batches, for that session's partition", async () => {
    let analyzed = 0;
    const partitions: string[][] = [];
    const stats = new PrintStatistics(
      async (sessions) => {
        analyzed++;
        partitions.push(sessions);
      },
      () => undefined,
    );
    stats.written(sessions("2026-03-03", 999));
    await stats.settled();
    expect(analyzed).toBe(0);
    stats.written(sessions("2026-03-03", 1));
    await stats.settled();
    expect(analyzed).toBe(1);
    stats.written(sessions("2026-03-03", 8_000));
    await stats.settled();
    expect(analyzed).toBe(1);
    // One batch past two thresholds: one ANALYZE.
    stats.written(sessions("2026-03-03", 95_000));
    await stats.settled();
    expect(analyzed).toBe(2);
    // A new session counts from its own start.
    stats.written([...sessions("2026-03-03", 10), ...sessions("2026-03-04", 1_000)]);
    await stats.settled();
    expect(analyzed).toBe(3);
    expect(partitions).toEqual([["2026-03-03"], ["2026-03-03"], ["2026-03-04"]]);
  });

  it("reports a failed ANALYZE and goes on", async () => {
    const failures: unknown[] = [];
    const stats = new PrintStatistics(
      () => Promise.reject(new Error("canceling statement due to lock timeout")),
      (error) => failures.push(error),
    );
    stats.written(sessions("2026-03-03", 1_000));
    await stats.settled();
    expect(failures).toHaveLength(1);
    stats.written(sessions("2026-03-03", 9_000));
    await stats.settled();
    expect(failures).toHaveLength(2);
  });
});
