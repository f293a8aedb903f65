import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR } from "./lib/config";
import { ensureDemoKey } from "./lib/demo-account";
import { startNeonHttpServer } from "./lib/neon-http-server";
import { seedMarket } from "./lib/seed-market";
import { openBackend } from "./lib/sql-backend";
import { startWorker } from "./lib/worker-process";

/**
 * One command for local development: database (embedded PGlite unless DATABASE_URL is set),
 * migrations, the demo market on first run, a demo API key, the local Neon endpoint, and the
 * Worker under `wrangler dev`. Ctrl-C stops all of it.
 */
async function main(): Promise<void> {
  const devDir = resolve(".dev");
  mkdirSync(devDir, { recursive: true });
  const url = databaseUrl();
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  await backend.migrate(MIGRATIONS_DIR);
  const { rows } = await backend.typedQuery("select count(*)::int as n from market_state");
  if (rows[0]?.n === 0) {
    console.log("first run: seeding the demo market…");
    const report = await seedMarket(backend, { size: "demo", seed: 1 });
    console.log(`seeded ${report.underlyings} underlyings, ${report.contracts} contracts, ${report.flowPrints} flow prints (session ${report.sessionDate})`);
  }
  const keyFile = resolve(devDir, "demo-api-key");
  const { key } = await ensureDemoKey(backend, keyFile);
  const sqlServer = await startNeonHttpServer(backend);
  const port = Number(process.env.PORT ?? 8787);
  console.log(`\n  database   ${url ? "PostgreSQL (DATABASE_URL)" : `PGlite at ${DEV_DATA_DIR}`}`);
  console.log(`  SQL (Neon protocol) http://127.0.0.1:${sqlServer.port}/sql`);
  console.log(`  API        http://127.0.0.1:${port}`);
  console.log(`  demo key   ${key}   (saved in .dev/demo-api-key)\n`);

  const worker = startWorker({ port, sqlPort: sqlServer.port });

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    worker.stop();
    await sqlServer.close();
    await backend.close();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  worker.child.on("exit", (code) => void stop(code ?? 0));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
