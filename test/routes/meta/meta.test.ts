import { describe, expect, it } from "vitest";
import { PLANS } from "../../../src/domain/plans";
import { buildOpenApiDocument } from "../../../src/openapi/document";
import { routes } from "../../../src/routes";
import { healthRoute } from "../../../src/routes/meta/health";
import { plansRoute } from "../../../src/routes/meta/plans";
import { readyRoute } from "../../../src/routes/meta/ready";
import { contractBody } from "../../support/contract";
import { call, callWith, testEnv } from "../../support/worker";

describe("/health", () => {
  it("answers ok with the service version", async () => {
    expect(await contractBody(healthRoute, await call("/health"))).toEqual({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});

describe("/ready", () => {
  it("is ready when both databases answer through the Neon protocol", async () => {
    const body = await contractBody(readyRoute, await call("/ready"));
    expect(body.status).toBe("ready");
    expect(body.checks.market).toMatchObject({ ok: true });
    expect(body.checks.control).toMatchObject({ ok: true });
  });

  it("answers 503 with the same body shape when a database endpoint is down, without hanging", async () => {
    const started = Date.now();
    const res = await callWith({ MARKET_DATABASE_URL: testEnv.TEST_DEAD_DATABASE_URL }, "/ready");
    const body = await contractBody(readyRoute, res, 503);
    expect(body.status).toBe("not_ready");
    expect(body.checks.market).toMatchObject({ ok: false, error: expect.any(String) });
    expect(body.checks.control).toMatchObject({ ok: true });
    expect(Object.keys(body).sort()).toEqual(["checks", "status", "version"]);
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|postgres/i);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("reports both when both are down", async () => {
    const dead = testEnv.TEST_DEAD_DATABASE_URL;
    const res = await callWith({ MARKET_DATABASE_URL: dead, CONTROL_DATABASE_URL: dead }, "/ready");
    const body = await contractBody(readyRoute, res, 503);
    expect(body.checks.market?.ok).toBe(false);
    expect(body.checks.control?.ok).toBe(false);
  });
});

describe("/openapi.json", () => {
  it("serves the OpenAPI 3.1.0 document (API version 1.0.0) generated from the route schemas", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json<{ openapi: string; info: { version: string }; paths: Record<string, unknown> }>();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/health", "/ready", "/openapi.json", "/v1/openapi.json", "/public/plans"]),
    );
    // Validated against the OpenAPI 3.1 schema in test/openapi/openapi.node.test.ts.
    expect(doc).toEqual(buildOpenApiDocument(routes));
  });

  it("carries ETag, public caching and CORS headers", async () => {
    const res = await call("/openapi.json");
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=3600");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
  });

  it("answers 304 to a matching If-None-Match (exact, weak and in a list) and 200 otherwise", async () => {
    const etag = (await call("/openapi.json")).headers.get("ETag") as string;
    for (const value of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = await call("/openapi.json", { headers: { "If-None-Match": value } });
      expect(res.status, value).toBe(304);
      expect(res.headers.get("ETag")).toBe(etag);
      expect(await res.text()).toBe("");
    }
    const miss = await call("/openapi.json", { headers: { "If-None-Match": '"stale"' } });
    expect(miss.status).toBe(200);
  });

  it("is served identically at /v1/openapi.json", async () => {
    const a = await call("/openapi.json");
    const b = await call("/v1/openapi.json");
    expect(b.status).toBe(200);
    expect(b.headers.get("ETag")).toBe(a.headers.get("ETag"));
    expect(b.headers.get("Cache-Control")).toBe("public, max-age=3600");
    expect(b.headers.get("Access-Control-Allow-Origin")).toBe("*");
    expect(await b.text()).toBe(await a.text());
    const conditional = await call("/v1/openapi.json", { headers: { "If-None-Match": a.headers.get("ETag") as string } });
    expect(conditional.status).toBe(304);
  });
});

describe("/public/plans", () => {
  it("lists the trial and Basic with the spec's identical limits", async () => {
    const res = await call("/public/plans");
    const body = await contractBody(plansRoute, res);
    expect(body.plans.map((p) => p.id)).toEqual(["trial", "basic"]);
    expect(body.plans[0]?.trialDays).toBe(14);
    for (const plan of body.plans) {
      expect(plan.limits).toMatchObject({ requestsPerMinute: 300, concurrency: 5, maxRows: 250, historyDays: 7, activeKeys: 5 });
    }
    const listed = PLANS.filter((p) => p.listed).map(({ listed: _listed, ...plan }) => plan);
    expect(body).toEqual({ plans: JSON.parse(JSON.stringify(listed)) });
  });
});
