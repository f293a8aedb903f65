import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { newApp } from "../../src/app";
import { database } from "../../src/db/client";
import { defineRoute } from "../../src/http/route";
import { bearer, newAccount } from "../support/accounts";
import { probe } from "../support/probe-app";
import { sampleRequests } from "../support/sample-requests";
import { call, callWith, expectError, testEnv } from "../support/worker";
import { createExecutionContext } from "cloudflare:test";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Every GET route's sample request (and its aliases' too), and whether it needs a key. */
const getRoutes = sampleRequests((r) => r.method === "get").flatMap(({ route, path }) =>
  [route.path, ...(route.aliases ?? [])].map((p) => ({ path: p === route.path ? path : p, keyed: route.access !== "public" })),
);

describe("request IDs", () => {
  it("echoes a client-supplied UUID on success and in error bodies", async () => {
    const id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301";
    const ok = await call("/health", { headers: { "X-Request-ID": id } });
    expect(ok.headers.get("X-Request-ID")).toBe(id);
    const err = await call("/nope", { headers: { "X-Request-ID": id } });
    const body = await expectError(err, 404, "not_found");
    expect(body.request_id).toBe(id);
  });

  it("replaces a malformed client ID with a server UUID", async () => {
    for (const bad of ["abc", "'; drop table x; --", "3f2504e0-4f89-11d3-9a0c-0305e82c330", "x".repeat(500)]) {
      const res = await call("/nope", { headers: { "X-Request-ID": bad } });
      const id = res.headers.get("X-Request-ID");
      expect(id).toMatch(UUID);
      expect(id).not.toBe(bad);
      expect((await expectError(res, 404, "not_found")).request_id).toBe(id);
    }
  });

  it("generates a distinct UUID per request when none is supplied", async () => {
    const a = (await call("/health")).headers.get("X-Request-ID");
    const b = (await call("/health")).headers.get("X-Request-ID");
    expect(a).toMatch(UUID);
    expect(b).toMatch(UUID);
    expect(a).not.toBe(b);
  });
});

describe("routing", () => {
  it("answers 404 not_found for unknown paths, with the envelope", async () => {
    for (const path of ["/", "/v1", "/v2/health", "/health/extra", "/v1/does-not-exist", "/%E0%A4%A"]) {
      await expectError(await call(path), 404, "not_found");
    }
  });

  it("answers 405 with an Allow header for known paths and wrong methods", async () => {
    const cases: [string, string][] = [
      ["POST", "/health"],
      ["DELETE", "/ready"],
      ["PUT", "/openapi.json"],
      ["PATCH", "/v1/openapi.json"],
      ["POST", "/public/plans"],
      ["OPTIONS", "/health"],
    ];
    for (const [method, path] of cases) {
      const res = await call(path, { method });
      await expectError(res, 405, "method_not_allowed");
      expect(res.headers.get("Allow"), `${method} ${path}`).toBe("GET, HEAD");
    }
  });

  it("serves HEAD on every GET route with the GET status and headers and no body", async () => {
    // The 20 GET routes of the spec, and the description's alias /v1/openapi.json.
    expect(getRoutes.map((r) => r.path).filter((p) => p.startsWith("/v1/openapi") || p === "/openapi.json")).toEqual([
      "/openapi.json",
      "/v1/openapi.json",
    ]);
    expect(getRoutes).toHaveLength(21);
    const { keys } = await newAccount();
    for (const { path, keyed } of getRoutes) {
      const init = keyed ? bearer(keys[0]!.key) : {};
      const get = await call(path, init);
      const head = await call(path, { ...init, method: "HEAD" });
      expect(get.status, path).toBe(200);
      expect(head.status, path).toBe(get.status);
      for (const h of ["Cache-Control", "ETag", "X-RateLimit-Limit", "X-Limit-Clamped"])
        expect(head.headers.get(h), `${path} ${h}`).toBe(get.headers.get(h));
      expect(head.headers.get("Content-Type"), path).toBe(get.headers.get("Content-Type"));
      expect(head.headers.get("X-Request-ID"), path).toMatch(UUID);
      expect(await head.text(), path).toBe("");
    }
  });
});

describe("failures never leak internals", () => {
  const leaky = /select|from |stack|at \w+ \(|\.ts:|Error:|relation|postgres|neon|127\.0\.0\.1/i;

  it("turns an unhandled exception into 500 internal_error with nothing internal in the body", async () => {
    const boom = defineRoute({
      method: "get",
      path: "/boom",
      operationId: "boom",
      summary: "throws",
      tags: [],
      access: "public",
      caching: "per-request",
      response: { description: "test" },
      handler: () => {
        throw new Error("select key_hash from api_keys where id = 7 -- at handler (src/x.ts:1:1)");
      },
    });
    const app = newApp([boom]);
    const res = await app.fetch(new Request("https://api.test/boom"), testEnv, createExecutionContext());
    const body = await expectError(res, 500, "internal_error");
    expect(JSON.stringify(body)).not.toMatch(leaky);
    expect(Object.keys(body).sort()).toEqual(["error", "message", "request_id", "status", "timestamp"]);
  });

  it("turns a database error from the real driver into 500 without SQL text", async () => {
    const failing = probe(
      "/bad-sql",
      async () => {
        await database(testEnv.MARKET_DATABASE_URL).execute(sql`select secret_column from no_such_table`);
        return new Response("unreachable");
      },
      z.object({}),
      "public",
    );
    const app = newApp([failing]);
    const res = await app.fetch(new Request("https://api.test/bad-sql"), testEnv, createExecutionContext());
    const body = await expectError(res, 500, "internal_error");
    expect(JSON.stringify(body)).not.toMatch(leaky);
  });

  it("answers 500 internal_error, not a crash, when the Worker is misconfigured", async () => {
    const res = await callWith({ MARKET_DATABASE_URL: "mysql://nope" }, "/health");
    const body = await expectError(res, 500, "internal_error");
    expect(JSON.stringify(body)).not.toMatch(/MARKET_DATABASE_URL|mysql/);
  });
});

describe("an unreachable database", () => {
  it("answers 503 service_unavailable with Retry-After, not 500, and leaks nothing", async () => {
    const { keys } = await newAccount();
    // A market cache without market entries (the key cache's namespace), so the chain must be read.
    const dead = { MARKET_DATABASE_URL: testEnv.TEST_DEAD_DATABASE_URL, MARKET_CACHE: testEnv.KEY_CACHE };
    const res = await callWith(dead, "/v1/chain/SPY", bearer(keys[0]!.key));
    const body = await expectError(res, 503, "service_unavailable");
    expect(res.headers.get("Retry-After")).toBe("1");
    expect(res.headers.get("X-RateLimit-Limit")).toBe("300");
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|connect|neon/i);
  });
});
