import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateAdminToken, isWellFormedAdminToken } from "../../../src/domain/admin-token";
import { AUTH_FAILURE_LIMIT } from "../../../src/limits/lockout";
import type { Bindings } from "../../../src/env";
import worker from "../../../src";
import { ADMIN_TOKEN, admin } from "../../support/accounts";
import { adminAuthFrom as auth } from "../../support/admin-fixture";
import { call, callWith, expectError, testEnv, type TestBindings } from "../../support/worker";

describe("internal admin API", () => {
  it("requires the admin bearer token", async () => {
    await expectError(await call("/admin/accounts/demo"), 401, "invalid_api_key");
    await expectError(await call("/admin/accounts/demo", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}x` } }), 401, "invalid_api_key");
    await expectError(await call("/admin/accounts/demo", { headers: { Authorization: "Bearer ods_live_x" } }), 401, "invalid_api_key");
  });

  it("does not exist when no admin token is configured", async () => {
    const res = await callWith({ ADMIN_TOKEN: "" }, "/admin/accounts/demo", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    await expectError(res, 404, "not_found");
  });

  it("validates bodies: 400 invalid_body for malformed JSON and bad fields", async () => {
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" };
    await expectError(await call("/admin/accounts", { method: "POST", headers, body: "{not json" }), 400, "invalid_body");
    await expectError(await call("/admin/accounts", { method: "POST", headers, body: JSON.stringify({ name: "" }) }), 400, "invalid_body");
    const bad = await call("/admin/accounts", { method: "POST", headers, body: JSON.stringify({ name: "x", status: "gold" }) });
    expect((await expectError(bad, 400, "invalid_body")).message).toMatch(/status/);
  });

  it("answers 404 for unknown accounts and keys, 409 for duplicate names", async () => {
    expect((await admin.showAccount("no-such-account")).status).toBe(404);
    expect((await admin.revokeKey(999999)).status).toBe(404);
    const name = `dup-${crypto.randomUUID().slice(0, 8)}`;
    expect((await admin.createAccount({ name })).status).toBe(201);
    const again = await admin.createAccount({ name });
    expect(again).toMatchObject({ status: 409, body: { error: "conflict" } });
  });
});

describe("admin API hardening", () => {
  /** A request through the Worker entry to any hostname (callWith's is always api.test). */
  async function callHost(host: string, overrides: Partial<TestBindings>, path: string, init?: RequestInit): Promise<Response> {
    const ctx = createExecutionContext();
    const request = new Request(`https://${host}${path}`, init) as Parameters<typeof worker.fetch>[0];
    const res = await worker.fetch(request, { ...testEnv, ...overrides } as Bindings, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  }

  it("refuses even the correct token from a locked-out client: the lockout is checked before the token", async () => {
    const ip = "203.0.113.171";
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
      await expectError(await call("/admin/accounts/demo", auth(ip, generateAdminToken())), 401, "invalid_api_key");
    }
    await expectError(await call("/admin/accounts/demo", auth(ip, generateAdminToken())), 429, "too_many_auth_failures");
    const locked = await call("/admin/accounts/demo", auth(ip));
    await expectError(locked, 429, "too_many_auth_failures");
    expect(Number(locked.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("asks the client's guard, not only this isolate's memory, before comparing", async () => {
    const ip = "203.0.113.172";
    const guard = testEnv.AUTH_GUARD.getByName(ip);
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) await guard.recordFailure();
    await expectError(await call("/admin/accounts/demo", auth(ip)), 429, "too_many_auth_failures");
    // Another client with the same token is unaffected.
    expect((await call("/admin/accounts/no-such-account", auth("203.0.113.173"))).status).toBe(404);
  });

  it("limits calls per client before any other work, the correct token included", async () => {
    const keys: string[] = [];
    const refusing = { limit: async ({ key }: { key: string }) => (keys.push(key), { success: false }) } as unknown as RateLimit;
    const res = await callWith({ ADMIN_RATE_LIMITER: refusing }, "/admin/accounts/demo", auth("203.0.113.174"));
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("Retry-After")).toBe("60");
    expect(keys).toEqual(["203.0.113.174"]);
    // A refused call is not a failed authentication: nothing was compared, nothing counted.
    const guard = testEnv.AUTH_GUARD.getByName("203.0.113.174");
    expect(await runInDurableObject(guard, (_g, state) => state.storage.list())).toHaveProperty("size", 0);
  });

  it("counts the ingestor's stream wake-ups against a limit of their own (one a commit), not the operators' calls", async () => {
    const refusing = { limit: async () => ({ success: false }) } as unknown as RateLimit;
    const wake = (env: Record<string, unknown>) => callWith(env, "/admin/streams/wake", { method: "POST", ...auth("203.0.113.175") });
    expect((await wake({ ADMIN_RATE_LIMITER: refusing })).status).toBe(200);
    await expectError(await wake({ STREAM_WAKE_LIMITER: refusing }), 429, "rate_limited");
    expect((await callWith({ STREAM_WAKE_LIMITER: refusing }, "/admin/accounts/no-such-account", auth("203.0.113.175"))).status).toBe(404);
  });

  it("accepts only a generated token (ods_admin_ + 256 random bits + checksum) as configuration", async () => {
    expect(isWellFormedAdminToken(ADMIN_TOKEN)).toBe(true);
    const wrongChecksum = `${ADMIN_TOKEN.slice(0, -1)}${ADMIN_TOKEN.endsWith("A") ? "B" : "A"}`;
    for (const token of ["a".repeat(32), "test-admin-token-0123456789abcdefghijk", "0123456789abcdef".repeat(3), wrongChecksum]) {
      await expectError(await callWith({ ADMIN_TOKEN: token }, "/health"), 500, "internal_error");
    }
    expect((await callWith({ ADMIN_TOKEN: generateAdminToken() }, "/health")).status).toBe(200);
  });

  it("answers only on ADMIN_HOSTNAME when it is set: 404 (and no Allow) anywhere else", async () => {
    const env = { ADMIN_HOSTNAME: "admin.api.test" };
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "CF-Connecting-IP": "203.0.113.175" };
    const wrongMethod = await callHost("api.test", env, "/admin/accounts", { method: "DELETE", headers });
    await expectError(wrongMethod, 404, "not_found");
    expect(wrongMethod.headers.get("Allow")).toBeNull();
    const name = `host-${crypto.randomUUID().slice(0, 8)}`;
    expect((await admin.createAccount({ name })).status).toBe(201);
    await expectError(await callHost("api.test", env, `/admin/accounts/${name}`, { headers }), 404, "not_found");
    expect((await callHost("admin.api.test", env, `/admin/accounts/${name}`, { headers })).status).toBe(200);
    expect((await callHost("ADMIN.api.test", env, `/admin/accounts/${name}`, { headers })).status).toBe(200);
    // The public API is unaffected.
    expect((await callHost("api.test", env, "/health", { headers })).status).toBe(200);
    await expectError(await callWith({ ADMIN_HOSTNAME: "https://admin.api.test/" }, "/health"), 500, "internal_error");
  });
});
