import { describe, expect, it } from "vitest";
import { call } from "../support/worker";

describe("GET /docs", () => {
  it("renders the API description with the renderer served from our own origin", async () => {
    const res = await call("/docs");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<redoc spec-url="/openapi.json">');
    expect(html).toContain('<script src="/docs/assets/redoc.standalone.js">');
    expect(html).not.toMatch(/<script src="https?:/);
    const csp = res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");

    const renderer = await call("/docs/assets/redoc.standalone.js");
    expect(renderer.status).toBe(200);
    expect(renderer.headers.get("Content-Type")).toContain("javascript");
    expect((await renderer.text()).length).toBeGreaterThan(500_000);
  });

  it("serves no other file of the renderer's folder", async () => {
    for (const path of ["/docs/assets/redoc.lib.js", "/redoc.standalone.js", "/docs/assets/redoc.standalone.js.map"]) {
      expect((await call(path)).status).toBe(404);
    }
  });
});
