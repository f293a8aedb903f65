import { testSqlPassword } from "./sql-password";
import { TEST_SESSION } from "./test-clock";
import { MATRIX_MARKETS } from "./date-matrix";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { startNeonHttpServer } from "../../devkit/neon-endpoint/neon-http-server";
import { resetDatabase } from "../../devkit/neon-endpoint/reset";
import { seedMarket } from "../../devkit/generator/seed-market";
import { readFileSync } from "node:fs";
import { writeQuoteTable } from "../../ingest/sources/cboe/write-quote-table";
import { parseQuoteTable } from "../../ingest/sources/cboe/quote-table";
import type { Server } from "node:http";
import { startOutageEndpoint } from "./database-outage";
import { DISTANT_RTT_MS } from "./distant-endpoint";
import { startVendorServer } from "./vendor-server";
import { startStripeReplayServer } from "./stripe-server";
import { testDatabaseUrl } from "./test-database";

/** The rate the SPX excerpt is loaded with (Feb 2022 T-bill yields were about 0.1-0.3%). */
export const LOADED_FILE_RATE = 0.0025;

interface Stack {
  /** Settles once every database is seeded (rejects with why one could not be). */
  seeded: Promise<unknown>;
  dataDir?: string;
  servers: { close(): Promise<void> }[];
  databases: Promise<SqlBackend>[];
}

/**
 * The stack is shared by every project that names this setup (the workerd tiers and the system tier): each
 * project's global setup runs this module, in the one main process, so the first starts it, the last stops it.
 * Vitest runs every project's global setup before any file: the endpoints listen at once and the databases are
 * seeded behind them, so the tiers that need none (unit, database, devkit) are not held up, and the others'
 * first query waits for the seeding (test/support/stack-ready.ts waits before a file's first test).
 */
const SHARED = Symbol.for("ods.test-stack");
type Shared = { users: number; stack: Promise<Stack> };
const shared = globalThis as unknown as Record<typeof SHARED, Shared | undefined>;

export async function setup(): Promise<void> {
  const current = (shared[SHARED] ??= { users: 0, stack: startStack() });
  current.users++;
  await current.stack;
}

export async function teardown(): Promise<void> {
  const current = shared[SHARED];
  if (!current || --current.users > 0) return;
  shared[SHARED] = undefined;
  const stack = await current.stack;
  await stack.seeded.catch(() => undefined);
  for (const server of stack.servers.reverse()) await server.close();
  for (const db of await Promise.allSettled(stack.databases)) if (db.status === "fulfilled") await db.value.close();
  if (stack.dataDir) rmSync(stack.dataDir, { recursive: true, force: true });
}

/**
 * Starts the local Neon endpoints the Worker under test talks to, in front of the test market: PGlite by default,
 * the PostgreSQL server named by TEST_DATABASE_URL otherwise (its schema is dropped and rebuilt); and the date
 * matrix's markets, each in an embedded database of its own.
 */
async function startStack(): Promise<Stack> {
  const databaseUrl = testDatabaseUrl();
  const dataDir = databaseUrl ? undefined : mkdtempSync(join(tmpdir(), "ods-test-"));
  const market = openBackend({ databaseUrl, dataDir: dataDir ?? "memory://" }).then(seedTestMarket);
  // One after the other, on the main thread either way (PGlite is WebAssembly in this process).
  const matrix: Promise<SqlBackend>[] = [];
  let previous: Promise<unknown> = market;
  for (const { session } of MATRIX_MARKETS) {
    const next = previous.then(async () => {
      const db = await openBackend({ dataDir: "memory://" });
      await db.migrate("./drizzle");
      await seedMarket(db, { size: "test", seed: 7, sessionDate: session });
      return db;
    });
    matrix.push(next);
    previous = next;
  }
  const seeded = Promise.all([market, ...matrix]);
  seeded.catch((err: unknown) => console.error("The test stack's databases could not be seeded:", err));
  // Every endpoint answers once all are seeded: a test never sees one market ready and another not.
  const whenSeeded = (db: Promise<SqlBackend>) => seeded.then(() => db);
  const stack: Stack = { seeded, dataDir, servers: [], databases: [market, ...matrix] };
  const password = testSqlPassword();
  stack.servers.push(await startNeonHttpServer(whenSeeded(market), { port: Number(process.env.TEST_SQL_PORT), password }));
  stack.servers.push(
    await startNeonHttpServer(whenSeeded(market), { port: Number(process.env.TEST_DISTANT_SQL_PORT), password, latencyMs: DISTANT_RTT_MS }),
  );
  stack.servers.push(await startOutageEndpoint(whenSeeded(market), databaseUrl, Number(process.env.TEST_OUTAGE_SQL_PORT)));
  const matrixPorts = (process.env.TEST_MATRIX_PORTS ?? "").split(",").map(Number);
  for (const [i, db] of matrix.entries()) stack.servers.push(await startNeonHttpServer(whenSeeded(db), { port: matrixPorts[i], password }));
  stack.servers.push(closable(await startVendorServer(Number(process.env.TEST_VENDOR_PORT))));
  stack.servers.push(closable(await startStripeReplayServer(Number(process.env.TEST_STRIPE_PORT))));
  return stack;
}

/** The synthetic test market, and real data next to it: the Cboe SPX excerpt, through the production loader. */
async function seedTestMarket(backend: SqlBackend): Promise<SqlBackend> {
  await resetDatabase(backend);
  await backend.migrate("./drizzle");
  await seedMarket(backend, { size: "test", seed: 7, sessionDate: TEST_SESSION });
  // The GEX table adds the rows near spot of the next 60 days (the excerpt's rows are left as they are).
  for (const file of ["SPX_2022-02-04_excerpt.csv", "SPX_2022-02-04_gex_quote_table.csv"]) {
    const table = parseQuoteTable(readFileSync(`test/fixtures/cboe/${file}`, "utf8"));
    await writeQuoteTable(backend, file, table, { rate: LOADED_FILE_RATE, dividendYield: 0 });
  }
  return backend;
}

/** An HTTP server closed with its keep-alive connections. */
function closable(server: Server): { close(): Promise<void> } {
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
