import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const call = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`https://api.test${path}`, init));

describe("meta endpoints", () => {
  it("/health answers ok with the service version", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    const body = await res.json<{ status: string; version: string }>();
    expect(body).toEqual({ status: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it("/ready probes both databases through the local Neon endpoint", async () => {
    const res = await call("/ready");
    expect(res.status).toBe(200);
    const body = await res.json<{ status: string; checks: Record<string, { ok: boolean; latencyMs: number }> }>();
    expect(body.status).toBe("ready");
    expect(body.checks.market?.ok).toBe(true);
    expect(body.checks.control?.ok).toBe(true);
    expect(body.checks.market?.latencyMs).toBeGreaterThanOrEqual(0);
  });
});
