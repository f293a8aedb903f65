import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { reservePort, unboundPort } from "./devkit/listen";
import { TEST_CLOCK } from "./test/support/test-clock";
import { MATRIX_MARKETS, matrixCacheBinding } from "./test/support/date-matrix";
import { testDatabaseRefusal } from "./test/support/test-database";
import { TierSequencer } from "./test/support/tier-sequencer";

/**
 * The tiers (docs/development.md, "Tests"), by suffix. Unit: plain Node, no global setup (pure code,
 * and queries against an in-process PGlite). Database: Node tests that own their database on the chosen
 * engine (ingest writers, the feed, the CLIs). Workers: the Worker in workerd on the seeded database
 * (the default suffix). System: the Worker under `wrangler dev` on the seeded database, over HTTP and in Chromium.
 * Devkit (by folder): `npm run dev` and its Worker state.
 */
const UNIT_TESTS = ["test/**/*.unit.test.ts"];
const DATABASE_TESTS = ["test/**/*.db.test.ts"];
const SYSTEM_TESTS = ["test/**/*.{node,browser,http}.test.ts"];
/** `npm run dev` and the dev kit, always on an embedded PGlite of their own whatever the engine: no global setup, run once in CI. */
const DEVKIT_TESTS = ["test/devkit/**/*.test.ts"];
/** Workerd tests that change shared tables in ways no concurrent test may see: they run alone, after all others. */
const ALONE_TESTS = ["test/**/*.alone.test.ts"];
/** The seeded databases, their SQL endpoints and the vendor stand-ins: only the tiers that need them start them. */
const STACK = "./test/support/global-setup.ts";
/** The stack seeds its databases behind endpoints that listen at once: each file of the tiers on it waits for that. */
const STACK_READY = "./test/support/stack-ready.ts";

export default defineConfig(async () => {
  // Before anything is set up: the suite never touches DATABASE_URL's database, nor one not named as a test database.
  const refusal = testDatabaseRefusal(process.env);
  if (refusal) throw new Error(refusal);
  // The local SQL endpoints and stand-ins (started by the global setup) must have known ports before the Worker's
  // bindings are fixed: each is bound here and kept bound until its server takes the socket over (devkit/listen.ts).
  const sqlPort = Number(process.env.TEST_SQL_PORT) || (await reservePort());
  process.env.TEST_SQL_PORT = String(sqlPort);
  const deadPort = await unboundPort();
  // A second endpoint whose database tests stop and start (test/support/database-outage.ts).
  const outagePort = Number(process.env.TEST_OUTAGE_SQL_PORT) || (await reservePort());
  process.env.TEST_OUTAGE_SQL_PORT = String(outagePort);
  // The same database as far away as Neon's region is from the edge (test/edge-cache/edge-cache.http.test.ts).
  process.env.TEST_DISTANT_SQL_PORT = String(Number(process.env.TEST_DISTANT_SQL_PORT) || (await reservePort()));
  // The date matrix's markets, one local SQL endpoint each (test/support/date-matrix.ts).
  const matrixPorts = process.env.TEST_MATRIX_PORTS
    ? process.env.TEST_MATRIX_PORTS.split(",").map(Number)
    : await Promise.all(MATRIX_MARKETS.map(() => reservePort()));
  process.env.TEST_MATRIX_PORTS = matrixPorts.join(",");
  const vendorPort = Number(process.env.TEST_VENDOR_PORT) || (await reservePort());
  process.env.TEST_VENDOR_PORT = String(vendorPort);
  const stripePort = Number(process.env.TEST_STRIPE_PORT) || (await reservePort());
  process.env.TEST_STRIPE_PORT = String(stripePort);
  // The local endpoints accept only connection strings with this run's password.
  const sqlPassword = process.env.TEST_SQL_PASSWORD || randomBytes(16).toString("hex");
  process.env.TEST_SQL_PASSWORD = sqlPassword;
  const url = (db: string, port = sqlPort) => `postgresql://app:${sqlPassword}@127.0.0.1:${port}/${db}`;
  const workerd = {
    wrangler: { configPath: "./wrangler.toml" },
    miniflare: {
      kvNamespaces: MATRIX_MARKETS.map((_, i) => matrixCacheBinding(i)),
      bindings: {
        MARKET_DATABASE_URL: url("market"),
        CONTROL_DATABASE_URL: url("control"),
        NEON_HTTP_ENDPOINT: "http://{host}:{port}/sql",
        // A generated admin token (`npm run admin -- token`): the configuration accepts no other kind.
        ADMIN_TOKEN: "ods_admin_MJWHLyf9Bb9kPPf5L5fnnPNwJbxdifbVtSc2DFWgee52mfYTz",
        CURSOR_SECRET: "test-cursor-secret-0123456789abcdef0123",
        SESSION_SECRET: "test-session-secret-0123456789abcdef012",
        // The Worker answers as of the test session, whatever the machine's date (test/support/test-clock.ts).
        MARKET_CLOCK: TEST_CLOCK,
        // The quote vendor is a local server replaying recorded payloads (test/support/vendor-server.ts).
        QUOTE_PROVIDER: "finnhub",
        QUOTE_PROVIDER_URL: `http://127.0.0.1:${vendorPort}`,
        QUOTE_PROVIDER_TOKEN: "test-vendor-token-4f2a9c",
        QUOTE_PROVIDER_TIMEOUT_MS: "300",
        // Billing: the SDK talks to a local server replaying recorded Stripe responses (test/support/stripe-server.ts).
        STRIPE_SECRET_KEY: "sk_test_replay_0123456789abcdef",
        STRIPE_WEBHOOK_SECRET: "whsec_test_0123456789abcdef0123456789",
        STRIPE_PRICE_BASIC: "price_test_basic",
        STRIPE_API_URL: `http://127.0.0.1:${stripePort}`,
        // Nothing listens here: lets tests run the Worker against an unreachable database.
        TEST_DEAD_DATABASE_URL: url("market", deadPort),
        // A live endpoint in front of a database that tests can stop (POST …/outage/stop, …/start).
        TEST_OUTAGE_DATABASE_URL: url("market", outagePort),
        TEST_OUTAGE_CONTROL: `http://127.0.0.1:${outagePort}/outage`,
        TEST_MATRIX_URLS: matrixPorts.map((port) => url("market", port)).join(","),
      },
    },
  };
  return {
    test: {
      // Most files wait on workerd, wrangler dev, a database or a browser rather than compute: two at a time even on
      // two cores (vitest's default leaves one idle), more where there are more cores.
      maxWorkers: Math.max(2, availableParallelism()),
      sequence: { sequencer: TierSequencer },
      projects: [
        // Files of the unit and database tiers share their worker's modules (isolate: false): each opens its own database
        // and holds no state another reads, and re-importing drizzle, PGlite and the ingest path per file cost a fifth of the tier.
        { test: { name: "unit", include: UNIT_TESTS, environment: "node", testTimeout: 60_000, isolate: false } },
        { test: { name: "database", include: DATABASE_TESTS, environment: "node", testTimeout: 60_000, isolate: false } },
        { test: { name: "devkit", include: DEVKIT_TESTS, environment: "node", testTimeout: 60_000 } },
        // The Worker, its analytics and its data path, inside workerd. Files share their worker's isolate (the Worker
        // is imported once per worker, not once per file), so a fixture that changes market data publishes a new
        // snapshot, as a load does, and caches outlive the file that filled them.
        {
          plugins: [cloudflareTest(workerd)],
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: [...UNIT_TESTS, ...DATABASE_TESTS, ...SYSTEM_TESTS, ...DEVKIT_TESTS, ...ALONE_TESTS],
            globalSetup: [STACK],
            setupFiles: [STACK_READY],
            testTimeout: 30_000,
            isolate: false,
          },
        },
        {
          plugins: [cloudflareTest(workerd)],
          test: {
            name: "workers-alone",
            include: ALONE_TESTS,
            globalSetup: [STACK],
            setupFiles: [STACK_READY],
            testTimeout: 30_000,
            isolate: false,
            sequence: { groupOrder: 1 },
          },
        },
        // The running system: the Worker under `wrangler dev` over HTTP, `npm run dev`, the dashboard in Chromium.
        {
          test: {
            name: "system",
            include: SYSTEM_TESTS,
            exclude: DEVKIT_TESTS,
            environment: "node",
            testTimeout: 60_000,
            globalSetup: [STACK, "./test/support/shared-worker.ts"],
            setupFiles: [STACK_READY, "./test/support/shared-worker-ready.ts"],
          },
        },
      ],
    },
  };
});
