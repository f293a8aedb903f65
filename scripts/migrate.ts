import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR } from "./lib/config";
import { openBackend } from "./sql-endpoint/sql-backend";

/** Applies pending migrations to the PostgreSQL server in DATABASE_URL, else to the dev PGlite. */
async function main(): Promise<void> {
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  try {
    await backend.migrate(MIGRATIONS_DIR);
    console.log(`migrations applied (${backend.kind}${url ? "" : `, ${DEV_DATA_DIR}`})`);
  } finally {
    await backend.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
