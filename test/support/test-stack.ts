import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "node:http";
import { acceptReserved } from "../../devkit/listen";
import { startNeonHttpServer } from "../../devkit/neon-endpoint/neon-http-server";
import { resetDatabase } from "../../devkit/neon-endpoint/reset";
import { seedMarket } from "../../devkit/generator/seed-market";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { writeQuoteTable } from "../../ingest/sources/cboe/write-quote-table";
import { parseQuoteTable } from "../../ingest/sources/cboe/quote-table";
import { startOutageEndpoint } from "./database-outage";
import { DISTANT_RTT_MS } from "./distant-endpoint";
import { MATRIX_MARKETS } from "./date-matrix";
import { testSqlPassword } from "./sql-password";
import { TEST_SESSION } from "./test-clock";
import { startVendorServer } from "./vendor-server";
import { startStripeReplayServer } from "./stripe-server";
import { testDatabaseUrl } from "./test-database";

/**
 * The test stack, in a process of its own (forked by test/support/global-setup.ts): the seeded test market behind
 * its local SQL endpoints, the date matrix's markets, the vendor and Stripe stand-ins. Its servers take over the
 * sockets the test config reserved (handed over with `sendReserved`), listen at once and answer once every database
 * is seeded. At once, not after seeding: a socket received over IPC is accepting already (Node listens on it as it
 * arrives), and a connection it accepted before a server took it over would hang. Seeding is WebAssembly work of seconds a market: off vitest's main process, which would otherwise start
 * no test file until it is done.
 *
 * Protocol: this process says "ready"; the parent hands over the reserved sockets, then says "start"; this process
 * says "listening"; "stop" closes everything and ends it.
 */

/** The rate the SPX excerpt is loaded with (Feb 2022 T-bill yields were about 0.1-0.3%). */
const LOADED_FILE_RATE = 0.0025;

interface Stack {
  /** Settles once every database is seeded (rejects with why one could not be). */
  seeded: Promise<unknown>;
  dataDir?: string;
  servers: { close(): Promise<void> }[];
  databases: Promise<SqlBackend>[];
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

async function stopStack(stack: Stack): Promise<void> {
  await stack.seeded.catch(() => undefined);
  for (const server of stack.servers.reverse()) await server.close();
  for (const db of await Promise.allSettled(stack.databases)) if (db.status === "fulfilled") await db.value.close();
  if (stack.dataDir) rmSync(stack.dataDir, { recursive: true, force: true });
}

const send = (message: string) => process.send?.(message);
acceptReserved();
let running: Promise<Stack> | undefined;
process.on("message", (message) => {
  if (message === "start") {
    running = startStack();
    running.then(
      () => send("listening"),
      (err: unknown) => {
        console.error("The test stack could not start:", err);
        process.exit(1);
      },
    );
  } else if (message === "stop") {
    void (running ?? Promise.reject(new Error("not started")))
      .then(stopStack)
      .catch(() => undefined)
      .finally(() => process.exit(0));
  }
});
// A run that ends without "stop" (vitest killed) must not leave the stack behind.
process.on("disconnect", () => process.exit(0));
send("ready");
