import { describe, expect, it } from "vitest";
import { readyRoute } from "../../../src/routes/meta/ready";
import { contractBody } from "../../support/contract";
import { callWith, testEnv } from "../../support/worker";

describe("/ready with a database down", () => {
  it("answers 503 with the same body shape when a database endpoint is down, without hanging", async () => {
    const started = Date.now();
    const res = await callWith({ MARKET_DATABASE_URL: testEnv.TEST_DEAD_DATABASE_URL }, "/ready");
    const body = await contractBody(readyRoute, res, 503);
    expect(body.status).toBe("not_ready");
    expect(body.checks.market).toMatchObject({ ok: false, error: expect.any(String) });
    expect(body.checks.control).toMatchObject({ ok: true });
    expect(Object.keys(body).sort()).toEqual(["checks", "feeds", "status", "version"]);
    expect(body.feeds).toEqual([]);
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
