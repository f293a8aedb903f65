import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { AdminClient, DEV_ADMIN_TOKEN_FILE, DEV_ADMIN_URL_FILE } from "./lib/admin-client";
import { databaseUrl, DEV_DATA_DIR, MIGRATIONS_DIR } from "./lib/config";
import { ensureDemoKey } from "./lib/demo-account";
import { DEV_DEMO_LOGIN, startDevOidcProvider } from "./lib/oidc-dev-provider";
import { startNeonHttpServer } from "./sql-endpoint/neon-http-server";
import { seedMarket } from "./generator/seed-market";
import { openBackend } from "./sql-endpoint/sql-backend";
import { startWorker, waitUntilUp } from "./lib/worker-process";

/** The dev admin token: kept across runs so `npm run admin` keeps working. */
function devAdminToken(): string {
  if (existsSync(DEV_ADMIN_TOKEN_FILE)) return readFileSync(DEV_ADMIN_TOKEN_FILE, "utf8").trim();
  const token = randomBytes(24).toString("hex");
  writeFileSync(DEV_ADMIN_TOKEN_FILE, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * One command for local development: database (embedded PGlite unless DATABASE_URL is set),
 * migrations, the demo market on first run, the local Neon endpoint, the Worker under
 * `wrangler dev`, and a demo account with an API key made through the admin API.
 * Ctrl-C stops all of it.
 */
async function main(): Promise<void> {
  const devDir = resolve(".dev");
  mkdirSync(devDir, { recursive: true });
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  await backend.migrate(MIGRATIONS_DIR);
  const { rows } = await backend.typedQuery("select count(*)::int as n from market_state");
  if (rows[0]?.n === 0) {
    console.log("first run: seeding the demo market…");
    const report = await seedMarket(backend, { size: "demo", seed: 1 });
    console.log(
      `seeded ${report.underlyings} underlyings, ${report.contracts} contracts, ${report.flowPrints} flow prints (session ${report.sessionDate})`,
    );
  }
  // A new password each run: only this run's Worker can use the endpoint, which runs any SQL.
  const sqlPassword = randomBytes(24).toString("hex");
  // NEON_LATENCY_MS: make the database as far away as Neon's region is from the edge.
  const sqlServer = await startNeonHttpServer(backend, { password: sqlPassword, latencyMs: Number(process.env.NEON_LATENCY_MS ?? 0) });
  const port = Number(process.env.PORT ?? 8787);
  const adminToken = devAdminToken();
  // Worker state (Durable Objects, KV) lives next to the database it caches.
  const persistTo = url ? resolve(devDir, "wrangler-state-postgres") : resolve(dirname(DEV_DATA_DIR), "wrangler-state");
  // The dashboard signs in against a real OpenID provider of its own, next to the API.
  const oidc = await startDevOidcProvider({
    port: Number(process.env.OIDC_PORT ?? port + 1),
    redirectUris: [`http://127.0.0.1:${port}/dashboard/callback`, `http://localhost:${port}/dashboard/callback`],
  });
  const worker = startWorker({
    port,
    sqlPort: sqlServer.port,
    sqlPassword,
    vars: {
      ADMIN_TOKEN: adminToken,
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      // Replaying a past file: `MARKET_CLOCK=2022-02-04T15:45:00-05:00 npm run dev`.
      ...(process.env.MARKET_CLOCK ? { MARKET_CLOCK: process.env.MARKET_CLOCK } : {}),
    },
    persistTo,
  });

  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    worker.stop();
    await oidc.close();
    await sqlServer.close();
    await backend.close();
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
  worker.child.on("exit", (code) => void stop(code ?? 0));

  await waitUntilUp(`${worker.url}/health`, 120_000);
  writeFileSync(DEV_ADMIN_URL_FILE, `${worker.url}\n`);
  const key = await ensureDemoKey(new AdminClient(worker.url, adminToken), resolve(devDir, "demo-api-key"));
  console.log(`\n  database   ${url ? "PostgreSQL (DATABASE_URL)" : `PGlite at ${DEV_DATA_DIR}`}`);
  console.log(`  API        ${worker.url}`);
  console.log(`  demo key   ${key}`);
  console.log(`             (saved in .dev/demo-api-key; admin token in .dev/admin-token for \`npm run admin\`)`);
  console.log(`  dashboard  ${worker.url}/dashboard`);
  console.log(`             sign in at the local OpenID provider (${oidc.issuer}) as ${DEV_DEMO_LOGIN} with any password`);
  console.log(`  try        curl -H "Authorization: Bearer ${key}" ${worker.url}/v1/usage\n`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
