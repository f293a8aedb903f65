import { describe, expect, it } from "vitest";
import { bearer, newAccount } from "../support/accounts";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { app, probeCall } from "../support/probe-app";
import { call, callWith, expectError, testEnv } from "../support/worker";

describe("responses to authenticated requests", () => {
  it("are private and never stored, errors after admission included; public ones keep their own caching", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    for (const path of ["/v1/test/ok", "/v1/test/throw", "/v1/test/missing", "/v1/test/validated?n=x"]) {
      expect((await probeCall(path, auth)).headers.get("Cache-Control"), path).toBe("private, no-store");
    }
    expect((await call("/v1/usage", auth)).headers.get("Cache-Control")).toBe("private, no-store");
    expect((await call("/public/plans")).headers.get("Cache-Control")).toBe("public, max-age=300");
  });
});

describe("paths with a trailing slash", () => {
  it("answer as the route without it, never a self-contradicting 405", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    expect((await call("/v1/usage/", auth)).status).toBe(200);
    expect((await call("/health/")).status).toBe(200);
    await expectError(await call("/v1/usage/", { ...auth, method: "POST" }), 405, "method_not_allowed");
  });
});

describe("cursor secrets", () => {
  const first = "cursor-secret-first-0123456789abcdef";
  const second = "cursor-secret-second-0123456789abcdef";

  it("rotate like origin secrets: the first signs, every one verifies", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    // A page size no other file asks for: the isolate's rendered pages outlive this file, their cursors signed with these secrets.
    const page = async (secrets: string, cursor?: string) =>
      callWith({ CURSOR_SECRET: secrets }, `/v1/chain/SPY?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, auth);
    const issuedBySecond = (await (await page(second)).json<{ nextCursor: string }>()).nextCursor;
    // After rotation (new secret first, old still listed) the old cursor continues; the new one is signed by `first`.
    const rotated = await page(`${first},${second}`, issuedBySecond);
    expect(rotated.status).toBe(200);
    const issuedByFirst = (await rotated.json<{ nextCursor: string }>()).nextCursor;
    expect((await page(first, issuedByFirst)).status).toBe(200);
    // Once the old secret is dropped, its cursors stop working.
    await expectError(await page(first, issuedBySecond), 400, "invalid_parameter");
  });

  it("must each be at least 32 characters", async () => {
    await expectError(await callWith({ CURSOR_SECRET: `${first},short` }, "/health"), 500, "internal_error");
    await expectError(await callWith({ CURSOR_SECRET: " , " }, "/health"), 500, "internal_error");
  });
});

describe("the benchmark floor", () => {
  it("exists only with BENCH_FLOOR and never where origin authentication is configured", async () => {
    expect((await callWith({ BENCH_FLOOR: "true" }, "/__bench/floor")).status).toBe(204);
    expect((await callWith({}, "/__bench/floor")).status).toBe(404);
    const secret = "edge-proxy-secret-0123456789abcdefgh";
    const behindEdge = await callWith({ BENCH_FLOOR: "true", ORIGIN_AUTH_SECRETS: secret }, "/__bench/floor", {
      headers: { "X-Origin-Auth": secret, "X-Client-IP": "192.0.2.10" },
    });
    await expectError(behindEdge, 404, "not_found");
    expect(testEnv.BENCH_FLOOR).toBeUndefined();
  });
});

describe("the SQL-over-HTTP endpoint setting", () => {
  it("allows plain http only to loopback addresses, directly or through each database URL's host", async () => {
    const remote = "postgresql://app:secret@db.example.com:5432/market";
    for (const env of [
      { NEON_HTTP_ENDPOINT: "http://db.example.com/sql" },
      { NEON_HTTP_ENDPOINT: "http://10.0.0.5:4444/sql" },
      { NEON_HTTP_ENDPOINT: "http://{host}:{port}/sql", MARKET_DATABASE_URL: remote },
      { NEON_HTTP_ENDPOINT: "http://{host}:{port}/sql", CONTROL_DATABASE_URL: remote },
    ]) {
      await expectError(await callWith(env, "/health"), 500, "internal_error");
    }
    for (const env of [
      // Production's setting: no pinned market clock either (the suite's own is refused without a local endpoint).
      { NEON_HTTP_ENDPOINT: "https://db.example.com/sql", MARKET_DATABASE_URL: remote, MARKET_CLOCK: undefined },
      { NEON_HTTP_ENDPOINT: "http://127.0.0.1:4444/sql" },
      { NEON_HTTP_ENDPOINT: "http://localhost:4444/sql" },
    ]) {
      expect((await callWith(env, "/health")).status, JSON.stringify(env)).toBe(200);
    }
  });
});

describe("base URLs that secrets travel to", () => {
  it("allow plain http only to loopback addresses: the quote vendor's, Stripe's and the OpenID issuer's, as the database endpoint's", async () => {
    const oidc = { OIDC_CLIENT_ID: "client", OIDC_CLIENT_SECRET: "secret" };
    for (const [name, extra] of [
      ["QUOTE_PROVIDER_URL", {}],
      ["STRIPE_API_URL", {}],
      ["OIDC_ISSUER", oidc],
    ] as const) {
      // A vendor token, a Stripe key or a client secret would cross the network in clear.
      for (const url of [
        "http://finnhub.io",
        "http://10.0.0.5:4444",
        "http://localhost@finnhub.io",
        "http://127.0.0.1.example.com",
        "ftp://127.0.0.1",
      ]) {
        await expectError(await callWith({ [name]: url, ...extra }, "/health"), 500, "internal_error");
      }
      for (const url of ["https://finnhub.io", "http://127.0.0.1:9", "http://localhost:9", "http://[::1]:9"]) {
        expect((await callWith({ [name]: url, ...extra }, "/health")).status, `${name}=${url}`).toBe(200);
      }
    }
  });
});

describe("database round trips", () => {
  it("are bounded: a query past QUERY_TIMEOUT_MS answers 503 with Retry-After, in time, and frees the in-flight slot", async () => {
    const { keys } = await newAccount();
    const env = { ...testEnv, QUERY_TIMEOUT_MS: "300" };
    const ctx = createExecutionContext();
    const started = Date.now();
    const res = await app.fetch(new Request("https://api.test/v1/test/slow-query?s=2", bearer(keys[0]!.key)), env, ctx);
    // The client has its answer at the deadline, not when the database finishes.
    expect(Date.now() - started).toBeLessThan(1_500);
    await expectError(res, 503, "service_unavailable");
    expect(res.headers.get("Retry-After")).toBe("1");
    await waitOnExecutionContext(ctx);
    // The slot is free: the next call is admitted. It is bounded as configured by default, not by 300 ms: PGlite runs
    // one statement at a time, and its pg_sleep holds the engine until the abandoned query's 2 s are over.
    expect((await probeCall("/v1/test/slow-query?s=0.05", bearer(keys[0]!.key))).status).toBe(200);
  });

  it("take a timeout between 100 and 25,000 ms (below the 30 s lease) or refuse the configuration", async () => {
    for (const QUERY_TIMEOUT_MS of ["50", "30000", "soon"]) {
      await expectError(await callWith({ QUERY_TIMEOUT_MS }, "/health"), 500, "internal_error");
    }
  });
});
