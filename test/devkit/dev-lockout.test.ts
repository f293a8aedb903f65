import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AdminClient } from "../../ingest/admin-api/admin-client";
import { ensureDemoKey } from "../../devkit/demo-account";
import { startWorker, waitUntilUp, type WorkerProcess } from "../../devkit/worker-process";
import { startNeonHttpServer, type NeonHttpServer } from "../../devkit/neon-endpoint/neon-http-server";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { generateAdminToken } from "../../src/domain/admin-token";
import { AUTH_FAILURE_LIMIT } from "../../src/limits/lockout";

/**
 * Tokens mistyped into `npm run admin` lock this machine out of the admin API, and `wrangler dev`
 * keeps the lockout with the Worker's state across restarts. `npm run dev` starts its Worker as
 * `startWorker({ persistTo, forgetLockouts: true })` (devkit/dev.ts), then makes the demo account and key
 * through the admin API with the token it generated (devkit/demo-account.ts): that setup must
 * not be refused. The Worker of each step here runs on the same state, as `npm run dev` runs again.
 */
const PASSWORD = "dev-lockout-probe";
const TOKEN = generateAdminToken();
let backend: SqlBackend;
let sql: NeonHttpServer;
let dir: string;
const running: WorkerProcess[] = [];

beforeAll(async () => {
  backend = await openBackend({ dataDir: "memory://" });
  await backend.migrate("./drizzle");
  sql = await startNeonHttpServer(backend, { password: PASSWORD });
  dir = mkdtempSync(join(tmpdir(), "ods-dev-lockout-"));
}, 60_000);

afterAll(async () => {
  for (const worker of running) await stopped(worker);
  await sql?.close();
  await backend?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function stopped(worker: WorkerProcess): Promise<void> {
  if (worker.child.exitCode !== null) return;
  const exit = new Promise((resolve) => worker.child.once("exit", resolve));
  worker.stop();
  await exit;
}

/** The Worker on the one persisted state, as `npm run dev` starts it (with `forgetLockouts`) or as before. */
async function worker(forgetLockouts: boolean): Promise<WorkerProcess> {
  const started = await startWorker({
    sqlPort: sql.port,
    sqlPassword: PASSWORD,
    vars: { ADMIN_TOKEN: TOKEN },
    quiet: true,
    persistTo: join(dir, "wrangler-state"),
    forgetLockouts,
  });
  running.push(started);
  await waitUntilUp(`${started.url}/health`, 90_000);
  return started;
}

const demoKey = (url: string) =>
  ensureDemoKey(new AdminClient(url, TOKEN), { ofDatabase: join(dir, "demo-api-key.db"), current: join(dir, "demo-api-key") });

describe("npm run dev after mistyped admin tokens", () => {
  it("sets up its demo account with its own token, though the machine is locked out of the admin API", async () => {
    const first = await worker(false);
    expect(await demoKey(first.url)).toMatch(/^ods_live_/);
    // Fifteen mistyped tokens from this machine (`npm run admin` with a wrong ADMIN_TOKEN).
    const mistyped = new AdminClient(first.url, generateAdminToken());
    const answers: string[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await mistyped.showAccount("demo");
      answers.push(res.ok ? "ok" : res.body.error);
    }
    expect(answers.slice(0, AUTH_FAILURE_LIMIT)).toEqual(Array(AUTH_FAILURE_LIMIT).fill("invalid_api_key"));
    expect(answers.at(-1)).toBe("too_many_auth_failures");
    // The right token is refused too while the lockout lasts (5 minutes), and the lockout outlives a restart.
    await expect(demoKey(first.url)).rejects.toThrow(/Too many failed authentication attempts/);
    await stopped(first);
    const restarted = await worker(false);
    await expect(demoKey(restarted.url)).rejects.toThrow(/Too many failed authentication attempts/);
    await stopped(restarted);

    // As `npm run dev` starts it: its setup goes through, with the key it saved before.
    const dev = await worker(true);
    const key = await demoKey(dev.url);
    expect((await fetch(`${dev.url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);
    // The lockout is gone, not the counting: mistyped tokens are still refused and counted.
    expect((await new AdminClient(dev.url, generateAdminToken()).showAccount("demo")).body).toMatchObject({ error: "invalid_api_key" });
  }, 240_000);
});
