import { afterEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { createExecutionContext } from "cloudflare:test";
import { newApp } from "../../src/app";
import { database } from "../../src/db/client";
import { bearer, newAccount } from "../support/accounts";
import { probe } from "../support/probe-app";
import { sampleRequests } from "../support/sample-requests";
import { callWith, expectError, testEnv } from "../support/worker";
import { advanceClock } from "../support/clock";

/**
 * The Worker keeps running while the database behind a live Neon endpoint stops and starts
 * (test/support/database-outage.ts: a TCP relay cut on PostgreSQL, a shut instance on PGlite).
 */
const OUTAGE = testEnv.TEST_OUTAGE_DATABASE_URL;

async function databaseIs(state: "stop" | "start"): Promise<void> {
  const res = await fetch(`${testEnv.TEST_OUTAGE_CONTROL}/${state}`, { method: "POST" });
  expect(res.status, `outage ${state}`).toBe(204);
}

afterEach(() => databaseIs("start"));

/** Every data route (they all read the market database), with a request that answers 200. */
const dataRequests = sampleRequests((r) => r.access === "entitled");
const dataPaths = dataRequests.map((s) => s.path);

const ready = (overrides: Record<string, string>) => callWith(overrides, "/ready");

describe("a database that stops under the running Worker", () => {
  it("answers 503 with Retry-After on every data route and /ready while it is away, then 200 again", async () => {
    expect(dataPaths).toEqual(expect.arrayContaining(["/v1/chain/SPY", "/v1/expirations/SPY"]));
    const { keys } = await newAccount();
    const key = bearer(keys[0]!.key);
    const market = { MARKET_DATABASE_URL: OUTAGE };
    // A key never used yet: resolving it reads the control database.
    const unused = bearer((await newAccount()).keys[0]!.key);
    const both = { MARKET_DATABASE_URL: OUTAGE, CONTROL_DATABASE_URL: OUTAGE };
    const started = Date.now();

    for (const { path, init } of dataRequests) expect((await callWith(market, path, init(key))).status, path).toBe(200);
    // /ready reuses its last result for 2 s when asked about the same databases: each phase asks about other ones.
    expect((await ready(both)).status).toBe(200);

    await databaseIs("stop");
    // What the edge has cached for the current snapshot keeps answering; anything it must read answers 503.
    for (const { path, init } of dataRequests.filter((r) => r.route.caching === "snapshot")) {
      expect((await callWith(market, path, init(key))).status, path).toBe(200);
    }
    // A market cache without any market entry (the key cache's namespace): every data route must read.
    const uncached = { ...market, MARKET_CACHE: testEnv.KEY_CACHE };
    for (const { path, init } of dataRequests) {
      const res = await callWith(uncached, path, init(key));
      const body = await expectError(res, 503, "service_unavailable");
      expect(res.headers.get("Retry-After"), path).toBe("1");
      expect(JSON.stringify(body), path).not.toMatch(/127\.0\.0\.1|connect|compute|neon|postgres|pglite/i);
    }
    await expectError(await callWith(both, "/v1/usage", unused), 503, "service_unavailable");
    const down = await ready(market);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({
      status: "not_ready",
      checks: { market: { ok: false, error: "unreachable" }, control: { ok: true } },
    });

    await databaseIs("start");
    for (const { path, init } of dataRequests) expect((await callWith(market, path, init(key))).status, path).toBe(200);
    expect((await callWith(both, "/v1/usage", unused)).status).toBe(200);
    expect((await ready(both)).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("still answers a query Postgres refuses (42601) with 500, up or down the database is 503", async () => {
    const badSql = probe(
      "/bad-sql",
      async () => {
        await database(OUTAGE).execute(sql`selec 1`);
        return new Response("unreachable");
      },
      z.object({}),
      "public",
    );
    const app = newApp([badSql]);
    const get = () => app.fetch(new Request("https://api.test/bad-sql"), testEnv, createExecutionContext());
    await expectError(await get(), 500, "internal_error");
    await databaseIs("stop");
    await expectError(await get(), 503, "service_unavailable");
    await databaseIs("start");
    await expectError(await get(), 500, "internal_error");
  });

  it("/ready reuses a result for 2 s per isolate, then probes again", async () => {
    const config = { MARKET_DATABASE_URL: OUTAGE, CONTROL_DATABASE_URL: OUTAGE, QUERY_TIMEOUT_MS: "5000" };
    // Let any result for these databases from an earlier test age out first.
    advanceClock(2_100);
    expect((await ready(config)).status).toBe(200);
    await databaseIs("stop");
    // Within the reuse window the public route does not touch the databases again.
    expect((await ready(config)).status).toBe(200);
    advanceClock(2_100);
    expect((await ready(config)).status).toBe(503);
  });
});
