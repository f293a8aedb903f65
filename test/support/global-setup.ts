import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBackend, type SqlBackend } from "../../scripts/lib/sql-backend";
import { startNeonHttpServer, type NeonHttpServer } from "../../scripts/lib/neon-http-server";
import { resetDatabase } from "../../scripts/lib/reset";
import { seedMarket } from "../../scripts/lib/seed-market";
import type { Server } from "node:http";
import { startVendorServer } from "./vendor-server";

let backend: SqlBackend | undefined;
let server: NeonHttpServer | undefined;
let dataDir: string | undefined;
let vendor: Server | undefined;

/**
 * Starts the local Neon endpoint the Worker under test talks to: PGlite by default, the
 * PostgreSQL server named by DATABASE_URL otherwise (its schema is dropped and rebuilt).
 */
export async function setup(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (!databaseUrl) dataDir = mkdtempSync(join(tmpdir(), "ods-test-"));
  backend = await openBackend({ databaseUrl, dataDir: dataDir ?? "memory://" });
  await resetDatabase(backend);
  await backend.migrate("./drizzle");
  await seedMarket(backend, { size: "test", seed: 7 });
  server = await startNeonHttpServer(backend, Number(process.env.TEST_SQL_PORT));
  vendor = await startVendorServer(Number(process.env.TEST_VENDOR_PORT));
}

export async function teardown(): Promise<void> {
  vendor?.closeAllConnections();
  vendor?.close();
  await server?.close();
  await backend?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
