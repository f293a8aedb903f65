/**
 * The date matrix: markets seeded for other sessions than the shared test market, each served by a
 * local SQL endpoint of its own, and the instants the Worker is asked at over them
 * (test/routes/date-matrix.test.ts). Thanksgiving week 2026, where a suite pinned to the machine's
 * date once failed: a Friday, a weekend day, a Monday, a night before the open, the day before a
 * holiday, the holiday, the early close after it, before and after 13:00 ET, and the Saturday after
 * (7 days back is the Saturday before; 7 sessions back reached the Wednesday before that). Plain
 * values, so vitest.config.ts can read them without importing the service.
 */
export interface MatrixMarket {
  /** The session the market is seeded for: its snapshot (15:45 ET, 12:45 on early closes) is the newest data. */
  session: string;
  /** Instants (UTC; November 2026 is EST, UTC−5) at which the market is asked, and what they stand for. */
  clocks: { at: string; what: string }[];
}

export const MATRIX_MARKETS: MatrixMarket[] = [
  {
    session: "2026-11-20",
    clocks: [
      { at: "2026-11-20T20:45:00Z", what: "Friday 15:45 ET" },
      { at: "2026-11-21T17:00:00Z", what: "Saturday noon ET" },
    ],
  },
  {
    session: "2026-11-23",
    clocks: [
      { at: "2026-11-23T20:45:00Z", what: "Monday 15:45 ET" },
      { at: "2026-11-24T05:05:00Z", what: "Tuesday 00:05 ET, before the open" },
    ],
  },
  {
    session: "2026-11-25",
    clocks: [
      { at: "2026-11-25T20:45:00Z", what: "Wednesday 15:45 ET, the day before Thanksgiving" },
      { at: "2026-11-26T17:00:00Z", what: "Thanksgiving noon ET (a holiday)" },
    ],
  },
  {
    session: "2026-11-27",
    clocks: [
      { at: "2026-11-27T17:45:00Z", what: "Friday after Thanksgiving 12:45 ET, before the 13:00 early close" },
      { at: "2026-11-27T18:30:00Z", what: "Friday after Thanksgiving 13:30 ET, after the early close" },
      { at: "2026-11-28T17:00:00Z", what: "Saturday after Thanksgiving noon ET" },
    ],
  },
];

/** The Worker binding of market `i`'s cache: each market has its own, as each database has its own edge state. */
export const matrixCacheBinding = (i: number) => `TEST_MATRIX_CACHE_${i}`;
