import { testSqlPassword } from "../support/sql-password";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, waitUntilUp, type WorkerProcess } from "../../scripts/lib/worker-process";
import { freePort } from "../../scripts/lib/free-port";

const run = promisify(execFile);
const TOKEN = "cli-test-admin-token-0123456789abcdefgh";
let worker: WorkerProcess;

/** Runs `npm run admin -- …` (the same script) and parses its single JSON value. */
async function cli(...args: string[]): Promise<{ code: number; json: unknown }> {
  try {
    const { stdout } = await run("node_modules/.bin/tsx", ["scripts/admin.ts", ...args, "--json"], {
      env: { ...process.env, ADMIN_URL: worker.url, ADMIN_TOKEN: TOKEN },
    });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, json: JSON.parse(e.stdout) };
  }
}

beforeAll(async () => {
  worker = startWorker({
    port: await freePort(),
    sqlPort: Number(process.env.TEST_SQL_PORT),
    sqlPassword: testSqlPassword(),
    vars: { ADMIN_TOKEN: TOKEN },
    quiet: true,
  });
  await waitUntilUp(`${worker.url}/health`, 90_000);
}, 120_000);

afterAll(() => worker?.stop());

describe("admin CLI against wrangler dev", () => {
  const name = `cli-${Date.now().toString(36)}`;

  it("creates an account, issues, lists and revokes keys, and sets the subscription, printing one JSON value each", async () => {
    const account = await cli("account", "create", "--name", name, "--status", "trialing");
    expect(account.code).toBe(0);
    expect(account.json).toMatchObject({ name, subscription: { plan: "trial", status: "trialing" } });

    const key = (await cli("key", "create", "--account", name)).json as { id: number; key: string; prefix: string };
    expect(key.key).toMatch(/^ods_live_[0-9A-Za-z]{49}$/);
    expect(key.prefix).toBe(key.key.slice(0, 16));

    const verify = await fetch(`${worker.url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(await verify.json()).toMatchObject({ key_id: key.id, subscription_status: "trialing", entitled: true });

    const list = (await cli("key", "list", "--account", name)).json as unknown[];
    expect(list).toEqual([{ id: key.id, prefix: key.prefix, createdAt: expect.any(String), revokedAt: null }]);

    const revoked = await cli("key", "revoke", String(key.id));
    expect(revoked.json).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    expect((await fetch(`${worker.url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key.key}` } })).status).toBe(401);

    const sub = await cli("subscription", "set", "--account", name, "--status", "past_due", "--plan", "basic");
    expect(sub.json).toMatchObject({ subscription: { plan: "basic", status: "past_due" } });
  });

  it("reports errors as a JSON value and a non-zero exit code", async () => {
    const missing = await cli("key", "list", "--account", "no-such-account");
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ error: "not_found" });
    const usage = await cli("key", "revoke", "abc");
    expect(usage.code).toBe(2);
    expect(usage.json).toMatchObject({ error: "cli_error" });
  });
});
