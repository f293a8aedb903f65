import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../../src/openapi/document";
import { routes } from "../../../src/routes";
import { call } from "../../support/worker";

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
    // Validated against the OpenAPI 3.1 schema in test/openapi/openapi.unit.test.ts.
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
