import { beforeAll } from "vitest";

/**
 * Setup file of the tiers on the shared stack: its endpoints listen from the start and answer once its databases
 * are seeded (test/support/global-setup.ts), so a file waits for that before its first test, not inside a test's
 * time. In Node the endpoint's port is in TEST_SQL_PORT; in workerd, whose process.env holds the Worker's string
 * bindings, in the market database's URL.
 */
const SEEDING_MS = 180_000;

beforeAll(async () => {
  const port = process.env.TEST_SQL_PORT ?? new URL(process.env.MARKET_DATABASE_URL ?? "").port;
  const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(SEEDING_MS) });
  if (res.status !== 200) throw new Error(`the test stack is not ready: ${res.status} ${await res.text()}`);
  await res.body?.cancel();
}, SEEDING_MS);
