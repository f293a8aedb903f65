/** The per-run password of the test SQL endpoints (vitest.config.ts makes it; Node-side code reads it here). */
export function testSqlPassword(): string {
  const password = process.env.TEST_SQL_PASSWORD;
  if (!password) throw new Error("TEST_SQL_PASSWORD is not set: run the tests through vitest (vitest.config.ts sets it)");
  return password;
}
