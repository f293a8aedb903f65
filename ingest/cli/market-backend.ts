import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { openBackend, type SqlBackend } from "../db/sql-backend";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR } from "./config";

/**
 * The market database a tool works on, migrated: the PostgreSQL server in DATABASE_URL, else the
 * embedded PGlite in DEV_DATA_DIR (its folder made). Closed again if the migration fails.
 */
export async function openMarketBackend(): Promise<SqlBackend> {
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  try {
    await backend.migrate(MIGRATIONS_DIR);
  } catch (error) {
    await backend.close();
    throw error;
  }
  return backend;
}
