import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generateAdminToken, isWellFormedAdminToken } from "../src/domain/admin-token";
import { AdminClient, DEV_ADMIN_TOKEN_FILE, DEV_ADMIN_URL_FILE } from "../ingest/admin-api/admin-client";
import { databaseUrl, DEV_DATA_DIR, DEV_DIR, MIGRATIONS_DIR } from "../ingest/cli/config";
import { ensureDemoKey } from "./demo-account";
import { DEV_DEMO_LOGIN, DEV_OIDC_CLIENT_ID, startDevOidcProvider } from "./oidc/oidc-dev-provider";
import { reservePort } from "./listen";
import { startNeonHttpServer } from "./neon-endpoint/neon-http-server";
import { holdsMarketData, seedMarket } from "./generator/seed-market";
import { openBackend } from "../ingest/db/sql-backend";
import { startWorker, waitUntilUp } from "./worker-process";
import { startStripeStandIn } from "./stripe/stripe-dev-server";
import { startDevMarket } from "./gateway/dev-market";

/** A secret of `npm run dev` kept in a file across runs: the saved one while it is well formed, else a new one (mode 0600). */
function keptSecret(file: string, wellFormed: (text: string) => boolean, generate: () => string): string {
  const saved = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
  if (wellFormed(saved)) return saved;
  const secret = generate();
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** Where the signing secret of the local webhook deliveries is kept, like the admin token. */
const DEV_STRIPE_WEBHOOK_SECRET_FILE = join(DEV_DIR, "stripe-webhook-secret");
/** A test-mode key made for this run: the local Stripe stand-in accepts only this one (its test endpoints too). */
const DEV_STRIPE_SECRET_KEY = `sk_test_dev_${randomBytes(16).toString("hex")}`;
const DEV_STRIPE_PRICE_BASIC = "price_dev_basic";

/**
 * What belongs to one database rather than to the machine: the Worker's Durable Object and KV
 * state (key → account mappings and snapshot versions of that database) and its demo key, in a
 * folder named by a hash of the database's location (a URL may hold a password).
 */
function databaseStateDir(url: string | undefined): string {
  const id = createHash("sha256")
    .update(url ? `postgres:${url}` : `pglite:${DEV_DATA_DIR}`)
    .digest("hex")
    .slice(0, 16);
  const dir = join(DEV_DIR, "databases", id);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** What has been started so far, stopped in reverse order on Ctrl-C, on the Worker's exit or on a failed start. */
const running: { name: string; stop: () => Promise<void> | void }[] = [];
let stopped: Promise<never> | undefined;

function stopAll(code: number): Promise<never> {
  stopped ??= (async () => {
    for (const part of running.reverse()) {
      await Promise.resolve()
        .then(part.stop)
        .catch((err: unknown) => console.error(`stopping the ${part.name}: ${err instanceof Error ? err.message : String(err)}`));
    }
    process.exit(code);
  })();
  return stopped;
}

/**
 * One command for local development: database (embedded PGlite unless DATABASE_URL is set),
 * migrations, the demo market when the database holds no market data, the local Neon endpoint,
 * the Worker under `wrangler dev`, a demo account with an API key made through the admin API, and
 * — unless `--static` — the market moving: the demo session streamed through a local vendor
 * gateway and the ingestor. Ctrl-C stops all of it; so does any failure on the way up.
 */
async function main(): Promise<void> {
  const moving = !process.argv.slice(2).includes("--static");
  mkdirSync(DEV_DIR, { recursive: true });
  const url = databaseUrl();
  if (!url) mkdirSync(dirname(DEV_DATA_DIR), { recursive: true });
  const stateDir = databaseStateDir(url);
  const backend = await openBackend({ databaseUrl: url, dataDir: DEV_DATA_DIR });
  running.push({ name: "database", stop: () => backend.close() });
  await backend.migrate(MIGRATIONS_DIR);
  // A database holding a loaded file (quotes or trades only) is a replay: never seed over it.
  if (!(await holdsMarketData(backend))) {
    console.log("empty database: seeding the demo market…");
    const report = await seedMarket(backend, { size: "demo", seed: 1 });
    console.log(
      `seeded ${report.underlyings} underlyings, ${report.contracts} contracts, ${report.flowPrints} flow prints (session ${report.sessionDate})`,
    );
  }
  // A new password each run: only this run's Worker can use the endpoint, which runs any SQL.
  const sqlPassword = randomBytes(24).toString("hex");
  // NEON_LATENCY_MS: make the database as far away as Neon's region is from the edge.
  const sqlServer = await startNeonHttpServer(backend, { password: sqlPassword, latencyMs: Number(process.env.NEON_LATENCY_MS ?? 0) });
  running.push({ name: "local SQL endpoint", stop: () => sqlServer.close() });
  // Kept across runs so `npm run admin` keeps working (one of an older format is replaced).
  const adminToken = keptSecret(DEV_ADMIN_TOKEN_FILE, isWellFormedAdminToken, generateAdminToken);
  // The Worker is given the OpenID provider's and the Stripe stand-in's URLs, and they the Worker's (redirect URIs,
  // webhook URL): their ports are bound first, the Worker's is known once wrangler has bound it (PORT=0: any free one).
  const oidcPort = Number(process.env.OIDC_PORT || 0) || (await reservePort());
  const oidcSecret = randomBytes(24).toString("hex");
  const stripePort = Number(process.env.STRIPE_PORT || 0) || (await reservePort());
  const webhookSecret = keptSecret(
    DEV_STRIPE_WEBHOOK_SECRET_FILE,
    (text) => /^whsec_[A-Za-z0-9]{32,}$/.test(text),
    () => `whsec_${randomBytes(24).toString("hex")}`,
  );
  const worker = await startWorker({
    port: Number(process.env.PORT ?? 8787),
    sqlPort: sqlServer.port,
    sqlPassword,
    vars: {
      ADMIN_TOKEN: adminToken,
      OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
      OIDC_CLIENT_ID: DEV_OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET: oidcSecret,
      STRIPE_SECRET_KEY: DEV_STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_PRICE_BASIC: DEV_STRIPE_PRICE_BASIC,
      STRIPE_API_URL: `http://127.0.0.1:${stripePort}`,
      // Replaying a past file: `MARKET_CLOCK=2022-02-04T15:45:00-05:00 npm run dev`.
      ...(process.env.MARKET_CLOCK ? { MARKET_CLOCK: process.env.MARKET_CLOCK } : {}),
    },
    persistTo: join(stateDir, "wrangler-state"),
    // Tokens mistyped into `npm run admin` lock this machine out of the admin API for 5 minutes, and the lockout is
    // kept with the state: its own setup below, with the token it generated, must not be refused for them.
    forgetLockouts: true,
  });
  running.push({ name: "Worker", stop: () => worker.stop() });
  worker.child.on("exit", (code) => {
    if (!stopped) console.error(`wrangler dev exited (${code ?? "signal"}); stopping everything`);
    void stopAll(code ?? 1);
  });
  // The dashboard signs in against a real OpenID provider of its own, next to the API.
  const workerPort = new URL(worker.url).port;
  const oidc = await startDevOidcProvider({
    port: oidcPort,
    clientSecret: oidcSecret,
    redirectUris: [`http://127.0.0.1:${workerPort}/dashboard/callback`, `http://localhost:${workerPort}/dashboard/callback`],
  });
  running.push({ name: "OpenID provider", stop: () => oidc.close() });
  // Billing against a local stand-in for Stripe: its Checkout and portal pages send signed webhooks to the Worker.
  const stripe = await startStripeStandIn({
    port: stripePort,
    secretKey: DEV_STRIPE_SECRET_KEY,
    webhook: { url: `${worker.url}/webhooks/stripe`, secret: webhookSecret },
  });
  running.push({
    name: "Stripe stand-in",
    stop: () =>
      new Promise<void>((resolve) => {
        stripe.closeAllConnections();
        stripe.close(() => resolve());
      }),
  });

  await waitUntilUp(`${worker.url}/health`, 120_000);
  writeFileSync(DEV_ADMIN_URL_FILE, `${worker.url}\n`);
  const currentKeyFile = join(DEV_DIR, "demo-api-key");
  const key = await ensureDemoKey(new AdminClient(worker.url, adminToken), {
    ofDatabase: join(stateDir, "demo-api-key"),
    current: currentKeyFile,
  });
  console.log(`\n  database   ${url ? "PostgreSQL (DATABASE_URL)" : `PGlite at ${DEV_DATA_DIR}`}`);
  console.log(`  API        ${worker.url}`);
  console.log(`  demo key   ${key}`);
  console.log(`             (saved in ${currentKeyFile}; admin token in ${DEV_ADMIN_TOKEN_FILE} for \`npm run admin\`)`);
  console.log(`  dashboard  ${worker.url}/dashboard`);
  console.log(`             sign in at the local OpenID provider (${oidc.issuer}) as ${DEV_DEMO_LOGIN} with any password`);
  console.log(`  billing    Checkout and the customer portal are local pages of a Stripe stand-in (${stripe.url})`);
  console.log(`             webhook secret in ${DEV_STRIPE_WEBHOOK_SECRET_FILE}`);
  console.log(`  try        curl -H "Authorization: Bearer ${key}" ${worker.url}/v1/usage\n`);
  const frozen = frozenBecause(moving, await backend.typedQuery("select source from market_state where id = 1"));
  if (frozen) console.log(`market frozen: ${frozen}`);
  else {
    const market = await startDevMarket(backend, (line) => console.log(line), new AdminClient(worker.url, adminToken));
    running.push({ name: "market feed", stop: () => market.stop() });
  }
}

/** Why the market stays as loaded, or null when the demo market moves: only the generated market is streamed, never a replayed file. */
function frozenBecause(moving: boolean, state: { rows: Record<string, unknown>[] }): string | null {
  if (!moving) return "--static";
  if (process.env.MARKET_CLOCK) return "MARKET_CLOCK pins a replayed session";
  if (!String(state.rows[0]?.source ?? "").startsWith("synthetic:")) return "the database holds a loaded file, not the generated market";
  return null;
}

process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));
main().catch(async (err: unknown) => {
  console.error(`npm run dev could not start: ${err instanceof Error ? err.message : String(err)}`);
  console.error("stopped everything it had started");
  await stopAll(1);
});
