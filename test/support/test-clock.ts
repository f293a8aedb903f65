/**
 * The session the shared test market is seeded for, and the instant the Worker under test answers
 * as of (its `MARKET_CLOCK`): every date-sensitive assertion reads these, never the machine's
 * date, so the suite gives the same answers on any day and across midnight. Other dates are
 * covered by the date-matrix test (test/routes/date-matrix.test.ts).
 */
export const TEST_SESSION = "2026-11-18";
/** 15:45 ET (EST, UTC−5) of the test session: the snapshot instant of the seeded market. */
export const TEST_CLOCK = "2026-11-18T20:45:00.000Z";
