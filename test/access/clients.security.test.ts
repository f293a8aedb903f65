import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/domain/api-key";
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS } from "../../src/limits/lockout";
import { clientKey } from "../../src/http/client-ip";
import { ADMIN_TOKEN, bearer } from "../support/accounts";
import { freshRateWindow } from "../support/clock";
import { call, callWith, expectError, testEnv } from "../support/worker";

/** Fails authentication `n` times from a client, returning the statuses. */
async function fail(n: number, headers: Record<string, string>, env: Parameters<typeof callWith>[0] = {}): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await callWith(env, "/v1/auth/verify", bearer(generateApiKey(), headers))).status);
  return statuses;
}

describe("client keys", () => {
  it("keep IPv4 addresses, group IPv6 by /64 and read IPv4-mapped addresses as IPv4", () => {
    expect(clientKey("192.0.2.7")).toBe("192.0.2.7");
    expect(clientKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:0DB8:0001:0002:ffff:0:0:9")).toBe("2001:db8:1:2::/64");
    expect(clientKey("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(clientKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    for (const bad of ["", "999.1.1.1", "2001:db8::1::2", "1:2:3:4:5:6:7:8:9", "not an address", "2001:db8:g::1"]) {
      expect(clientKey(bad), bad).toBe("unknown");
    }
  });
});

describe("lockout keys", () => {
  it("lock a whole IPv6 /64: rotating the interface identifier does not evade it", async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= AUTH_FAILURE_LIMIT + 1; i++) {
      statuses.push(
        (await call("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": `2001:db8:77:1::${i.toString(16)}` }))).status,
      );
    }
    expect(statuses.slice(0, AUTH_FAILURE_LIMIT)).toEqual(Array(AUTH_FAILURE_LIMIT).fill(401));
    expect(statuses.at(-1)).toBe(429);
    await expectError(
      await call("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": "2001:db8:77:1:abcd::1" })),
      429,
      "too_many_auth_failures",
    );
    expect((await call("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": "2001:db8:77:2::1" }))).status).toBe(401);
  });

  it("behind the edge proxy, come from the proxy's client header, so one client's failures lock only that client", async () => {
    const secret = "edge-proxy-secret-0123456789abcdefgh";
    const env = { ORIGIN_AUTH_SECRETS: secret };
    const viaProxy = (client: string) => ({ "X-Origin-Auth": secret, "CF-Connecting-IP": "198.18.0.1", "X-Client-IP": client });
    const statuses = await fail(AUTH_FAILURE_LIMIT + 1, viaProxy("192.0.2.50"), env);
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy address is not locked out.
    expect((await fail(1, viaProxy("192.0.2.51"), env))[0]).toBe(401);
  });

  it("never trust the client header without origin authentication: it cannot be used to escape a lockout", async () => {
    const ip = "203.0.113.90";
    const statuses: number[] = [];
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++)
      statuses.push((await fail(1, { "CF-Connecting-IP": ip, "X-Client-IP": `192.0.2.${i}` }))[0]!);
    expect(statuses.at(-1)).toBe(429);
  });

  it("honour a configured client header name", async () => {
    const secret = "edge-proxy-secret-0123456789abcdefgh";
    const env = { ORIGIN_AUTH_SECRETS: secret, CLIENT_IP_HEADER: "X-Real-Client" };
    const headers = { "X-Origin-Auth": secret, "CF-Connecting-IP": "198.18.0.2", "X-Real-Client": "192.0.2.60" };
    expect((await fail(AUTH_FAILURE_LIMIT + 1, headers, env)).at(-1)).toBe(429);
    expect((await fail(1, { ...headers, "X-Real-Client": "192.0.2.61" }, env))[0]).toBe(401);
  });
});

describe("guessed keys", () => {
  it("cost at most 30 database lookups a minute per client: further unknown keys are refused before Postgres", async () => {
    // The lookup limiter's window is the wall clock's minute: 31 guesses straddling its end would find a new one.
    await freshRateWindow(10_000);
    const ip = "203.0.113.91";
    const responses: Response[] = [];
    for (let i = 0; i < 31; i++) responses.push(await call("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": ip })));
    // Locked after 10 failures (Retry-After ≈ 300 s), yet each guess still needed a lookup; the 31st is refused before one.
    expect(Number(responses[AUTH_FAILURE_LIMIT + 1]!.headers.get("Retry-After"))).toBeGreaterThan(200);
    const throttled = responses[30]!;
    await expectError(throttled, 429, "too_many_auth_failures");
    expect(throttled.headers.get("Retry-After")).toBe("60");
  });

  it("leave no guard storage behind once the window and any lockout have passed", async () => {
    const ip = "203.0.113.92";
    await fail(1, { "CF-Connecting-IP": ip });
    const guard = testEnv.AUTH_GUARD.getByName(ip);
    const alarm = await runInDurableObject(guard, (_g, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeGreaterThan(AUTH_FAILURE_WINDOW_MS - 5_000);
    // Early: nothing is forgotten and the alarm is set again.
    expect(await runDurableObjectAlarm(guard)).toBe(true);
    expect((await runInDurableObject(guard, (_g, state) => state.storage.list())).size).toBe(2);
    // Once the failure has left the window: storage is gone.
    await runInDurableObject(guard, (_g, state) => state.storage.put("failures", [Date.now() - AUTH_FAILURE_WINDOW_MS - 1]));
    expect(await runDurableObjectAlarm(guard)).toBe(true);
    expect((await runInDurableObject(guard, (_g, state) => state.storage.list())).size).toBe(0);
  });
});

describe("the admin API", () => {
  it("counts wrong admin tokens like wrong keys", async () => {
    const ip = "203.0.113.93";
    const statuses: number[] = [];
    for (let i = 0; i <= AUTH_FAILURE_LIMIT; i++) {
      statuses.push((await call("/admin/accounts/demo", bearer(`${ADMIN_TOKEN}-${i}`, { "CF-Connecting-IP": ip }))).status);
    }
    expect(statuses.slice(0, AUTH_FAILURE_LIMIT)).toEqual(Array(AUTH_FAILURE_LIMIT).fill(401));
    expect(statuses.at(-1)).toBe(429);
  });

  it("does not exist for any method without a token, and bounds what it echoes", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
      const res = await callWith({ ADMIN_TOKEN: "" }, "/admin/accounts", { method });
      await expectError(res, 404, "not_found");
      expect(res.headers.get("Allow")).toBeNull();
    }
    const long = `/admin/accounts/${"x".repeat(5_000)}/nope`;
    const body = await expectError(await callWith({ ADMIN_TOKEN: "" }, long), 404, "not_found");
    expect(body.message.length).toBeLessThan(200);
  });

  it("refuses key ids outside the database's integer range with 400, not 500", async () => {
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    for (const id of ["3000000000", "2147483648", "99999999999999999999"]) {
      await expectError(await call(`/admin/keys/${id}/revoke`, { method: "POST", headers }), 400, "invalid_parameter");
    }
    expect((await call("/admin/keys/2147483647/revoke", { method: "POST", headers })).status).toBe(404);
  });

  it("refuses an admin token or origin secret shorter than 32 characters as a configuration error", async () => {
    await expectError(await callWith({ ADMIN_TOKEN: "short-admin-token-0123456789" }, "/health"), 500, "internal_error");
    await expectError(await callWith({ ORIGIN_AUTH_SECRETS: "a".repeat(40) + ",short" }, "/health"), 500, "internal_error");
  });
});
