import { describe, expect, it } from "vitest";
import { STANDARD_LIMITS } from "../../src/domain/plans";
import { gcra, perMinuteQuota } from "../../durable-objects/gcra";

const ACCOUNT_QUOTA = perMinuteQuota(STANDARD_LIMITS.requestsPerMinute);

/**
 * The golden table of throttled/throttled rate_test.go (TestRateLimit): limit 5, one request per
 * second, starting at the Unix epoch. Columns: now (ms), volume, remaining, reset (ms), retry
 * (ms, -1 = none), limited.
 */
const THROTTLED_CASES: [now: number, volume: number, remaining: number, reset: number, retry: number, limited: boolean][] = [
  [0, 6, 5, 0, -1, true],
  [0, 1, 4, 1000, -1, false],
  [0, 1, 3, 2000, -1, false],
  [0, 1, 2, 3000, -1, false],
  [0, 1, 1, 4000, -1, false],
  [0, 1, 0, 5000, -1, false],
  [0, 1, 0, 5000, 1000, true],
  [3000, 1, 2, 3000, -1, false],
  [3100, 1, 1, 3900, -1, false],
  [4000, 1, 1, 4000, -1, false],
  [8000, 1, 4, 1000, -1, false],
  [9500, 1, 4, 1000, -1, false],
  [9500, 0, 4, 1000, -1, false],
  [9500, 2, 2, 3000, -1, false],
  [9500, 5, 2, 3000, 3000, true],
];

describe("GCRA", () => {
  it("reproduces throttled's golden table row by row", () => {
    const quota = { limit: 5, emissionIntervalMs: 1000 };
    let tat: number | null = null;
    THROTTLED_CASES.forEach(([now, volume, remaining, reset, retry, limited], row) => {
      const r = gcra(tat, now, volume, quota);
      expect({ row, limited: !r.allowed, remaining: r.remaining, reset: r.resetAfterMs, retry: r.retryAfterMs }).toEqual({
        row,
        limited,
        remaining,
        reset,
        retry,
      });
      tat = r.tat;
    });
  });

  it("admits exactly 300 at once from a fresh bucket, then one per 200 ms", () => {
    let tat: number | null = null;
    let admitted = 0;
    const now = 1_700_000_000_000;
    for (let i = 0; i < 400; i++) {
      const r = gcra(tat, now, 1, ACCOUNT_QUOTA);
      if (r.allowed) admitted++;
      tat = r.tat;
    }
    expect(admitted).toBe(300);
    const rejected = gcra(tat, now, 1, ACCOUNT_QUOTA);
    expect(rejected).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 200, resetAfterMs: 60_000 });
    expect(gcra(tat, now + 199, 1, ACCOUNT_QUOTA).allowed).toBe(false);
    expect(gcra(tat, now + 200, 1, ACCOUNT_QUOTA).allowed).toBe(true);
  });

  it("refills completely after a minute of silence", () => {
    let tat: number | null = null;
    for (let i = 0; i < 300; i++) tat = gcra(tat, 0, 1, ACCOUNT_QUOTA).tat;
    const later = gcra(tat, 60_000, 0, ACCOUNT_QUOTA);
    expect(later).toMatchObject({ allowed: true, remaining: 300, resetAfterMs: 0 });
  });
});
