import { databaseUrl, DEV_DATA_DIR } from "./config";
import { openMarketBackend } from "./market-backend";
import { runCli } from "./run-cli";

/** Applies pending migrations to the PostgreSQL server in DATABASE_URL, else to the dev PGlite. */
async function main(): Promise<void> {
  const backend = await openMarketBackend();
  try {
    console.log(`migrations applied (${backend.kind}${databaseUrl() ? "" : `, ${DEV_DATA_DIR}`})`);
  } finally {
    await backend.close();
  }
}

runCli(main);
