import { isWellFormedAdminToken } from "../../src/domain/admin-token";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { AdminClient, checkedAdminUrl } from "../../ingest/admin-api/admin-client";
import { sharedWorker } from "../support/http-accounts";

const run = promisify(execFile);

/** Runs `npm run admin -- …` (the same script) and parses its single JSON value. */
function cli(...args: string[]): Promise<{ code: number; json: unknown }> {
  return cliAt(sharedWorker().url, ...args);
}

async function cliAt(url: string, ...args: string[]): Promise<{ code: number; json: unknown }> {
  try {
    // The token travels in the environment, never in the arguments.
    const { stdout } = await run("node_modules/.bin/tsx", ["scripts/admin.ts", ...args, "--json"], {
      env: { ...process.env, ADMIN_URL: url, ADMIN_TOKEN: sharedWorker().adminToken },
    });
    return { code: 0, json: JSON.parse(stdout) };
  } catch (err) {
    const e = err as { code: number; stdout: string };
    return { code: e.code, json: JSON.parse(e.stdout) };
  }
}

describe("admin CLI against wrangler dev", () => {
  const name = `cli-${Date.now().toString(36)}`;

  it("creates an account, issues, lists and revokes keys, and sets the subscription, printing one JSON value each", async () => {
    const account = await cli("account", "create", "--name", name, "--status", "trialing");
    expect(account.code).toBe(0);
    expect(account.json).toMatchObject({ name, subscription: { plan: "trial", status: "trialing" } });

    const key = (await cli("key", "create", "--account", name)).json as { id: number; key: string; prefix: string };
    expect(key.key).toMatch(/^ods_live_[0-9A-Za-z]{49}$/);
    expect(key.prefix).toBe(key.key.slice(0, 16));

    const verify = await fetch(`${sharedWorker().url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key.key}` } });
    expect(await verify.json()).toMatchObject({ key_id: key.id, subscription_status: "trialing", entitled: true });

    const list = (await cli("key", "list", "--account", name)).json as unknown[];
    expect(list).toEqual([{ id: key.id, prefix: key.prefix, createdAt: expect.any(String), revokedAt: null }]);

    const revoked = await cli("key", "revoke", String(key.id));
    expect(revoked.json).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    expect((await fetch(`${sharedWorker().url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key.key}` } })).status).toBe(401);

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

describe("admin CLI transport and tokens", () => {
  it("refuses plain http to a host other than this machine, before sending anything", async () => {
    for (const url of ["http://admin.example.com", "http://10.0.0.5:8787", "http://[2001:db8::1]:8787", "ftp://admin.example.com"]) {
      expect(() => checkedAdminUrl(url)).toThrow();
      expect(() => new AdminClient(url, sharedWorker().adminToken)).toThrow();
    }
    for (const url of ["https://admin.example.com", "http://127.0.0.1:8787", "http://localhost:8787/", "http://[::1]:8787"]) {
      expect(() => checkedAdminUrl(url)).not.toThrow();
    }
    const refused = await cliAt("http://admin.example.com", "account", "show", "--name", "x");
    expect(refused.code).toBe(2);
    expect(refused.json).toMatchObject({ error: "cli_error", message: expect.stringMatching(/plain http/) });
  });

  it("generates admin tokens in the one format the service accepts", async () => {
    const { code, json } = await cli("token");
    expect(code).toBe(0);
    const { token } = json as { token: string };
    expect(token).toMatch(/^ods_admin_[0-9A-Za-z]{49}$/);
    expect(isWellFormedAdminToken(token)).toBe(true);
    expect(token).not.toBe(((await cli("token")).json as { token: string }).token);
  });
});
