import { testSqlPassword } from "./sql-password";
import { TEST_SESSION } from "./test-clock";
import { MATRIX_MARKETS } from "./date-matrix";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { startNeonHttpServer, type NeonHttpServer } from "../../devkit/neon-endpoint/neon-http-server";
import { resetDatabase } from "../../devkit/neon-endpoint/reset";
import { seedMarket } from "../../devkit/generator/seed-market";
import { readFileSync } from "node:fs";
import { writeQuoteTable } from "../../ingest/sources/cboe/write-quote-table";
import { parseQuoteTable } from "../../ingest/sources/cboe/quote-table";
import type { Server } from "node:http";
import { startOutageEndpoint, type OutageEndpoint } from "./database-outage";
import { DISTANT_RTT_MS } from "./distant-endpoint";
import { startVendorServer } from "./vendor-server";
import { startStripeReplayServer } from "./stripe-server";
import { testDatabaseUrl } from "./test-database";

/** The rate the SPX excerpt is loaded with (Feb 2022 T-bill yields were about 0.1-0.3%). */
export const LOADED_FILE_RATE = 0.0025;

let backend: SqlBackend | undefined;
let server: NeonHttpServer | undefined;
let distant: NeonHttpServer | undefined;
let dataDir: string | undefined;
let vendor: Server | undefined;
let stripe: Server | undefined;
let outage: OutageEndpoint | undefined;
const matrix: { db: SqlBackend; server: NeonHttpServer }[] = [];

/**
 * Starts the local Neon endpoint the Worker under test talks to: PGlite by default, the
 * PostgreSQL server named by TEST_DATABASE_URL otherwise (its schema is dropped and rebuilt).
 */
export async function setup(): Promise<void> {
  const databaseUrl = testDatabaseUrl();
  if (!databaseUrl) dataDir = mkdtempSync(join(tmpdir(), "ods-test-"));
  backend = await openBackend({ databaseUrl, dataDir: dataDir ?? "memory://" });
  await resetDatabase(backend);
  await backend.migrate("./drizzle");
  await seedMarket(backend, { size: "test", seed: 7, sessionDate: TEST_SESSION });
  // Real data next to the synthetic market: the Cboe SPX excerpt, through the production loader.
  // The GEX table adds the rows near spot of the next 60 days (the excerpt's rows are left as they are).
  for (const file of ["SPX_2022-02-04_excerpt.csv", "SPX_2022-02-04_gex_quote_table.csv"]) {
    const table = parseQuoteTable(readFileSync(`test/fixtures/cboe/${file}`, "utf8"));
    await writeQuoteTable(backend, file, table, { rate: LOADED_FILE_RATE, dividendYield: 0 });
  }
  server = await startNeonHttpServer(backend, { port: Number(process.env.TEST_SQL_PORT), password: testSqlPassword() });
  distant = await startNeonHttpServer(backend, {
    port: Number(process.env.TEST_DISTANT_SQL_PORT),
    password: testSqlPassword(),
    latencyMs: DISTANT_RTT_MS,
  });
  outage = await startOutageEndpoint(backend, databaseUrl, Number(process.env.TEST_OUTAGE_SQL_PORT));
  // The date matrix: a small market per session, each in its own embedded database and endpoint.
  const matrixPorts = (process.env.TEST_MATRIX_PORTS ?? "").split(",").map(Number);
  for (const [i, market] of MATRIX_MARKETS.entries()) {
    const db = await openBackend({ dataDir: "memory://" });
    await db.migrate("./drizzle");
    await seedMarket(db, { size: "test", seed: 7, sessionDate: market.session });
    matrix.push({ db, server: await startNeonHttpServer(db, { port: matrixPorts[i], password: testSqlPassword() }) });
  }
  vendor = await startVendorServer(Number(process.env.TEST_VENDOR_PORT));
  stripe = await startStripeReplayServer(Number(process.env.TEST_STRIPE_PORT));
}

export async function teardown(): Promise<void> {
  vendor?.closeAllConnections();
  vendor?.close();
  stripe?.closeAllConnections();
  stripe?.close();
  await outage?.close();
  for (const { db, server } of matrix.splice(0)) {
    await server.close();
    await db.close();
  }
  await server?.close();
  await distant?.close();
  await backend?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
