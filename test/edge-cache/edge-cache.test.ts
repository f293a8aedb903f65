import { describe, expect, it } from "vitest";
import { addDays } from "../../src/domain/calendar";
import { expirationsRoute } from "../../src/routes/quotes-and-options/expirations";
import { ivContextRoute } from "../../src/routes/volatility/iv-context";
import { BUMP_SCOPES_SQL, tradedScopes } from "../../ingest/db/versions";
import { chainRoute } from "../../src/routes/quotes-and-options/chain";
import { gexRoute } from "../../src/routes/gamma-exposure/gex";
import { topIvRoute } from "../../src/routes/volatility/top-iv";
import { earningsRoute } from "../../src/routes/calendars/earnings";
import { MARKET_IV } from "../../src/market/scopes";
import { admin, bearer, newAccount } from "../support/accounts";
import { contractBody } from "../support/contract";
import { sampleRequests } from "../support/sample-requests";
import { bumpMarketVersion, createTestUnderlying, etToday, marketSql } from "../support/market-db";
import { callWith, testEnv } from "../support/worker";
import { countedAlias } from "../support/counted-database";
import { advanceClock } from "../support/clock";

/**
 * The same market database under a name of its own: the local endpoint counts round trips per
 * database name, so this file's requests are counted apart from every other test's.
 */
function countedMarket(): { env: { MARKET_DATABASE_URL: string }; trips: () => Promise<number> } {
  const { url, trips } = countedAlias(testEnv.MARKET_DATABASE_URL, "market");
  return { env: { MARKET_DATABASE_URL: url }, trips };
}

/** Makes the versions' KV copy look read from Postgres `ms` ago. */
async function ageSharedVersions(ms: number): Promise<void> {
  const shared = await testEnv.MARKET_CACHE.get<{ readAt: number }>("market:versions", "json");
  await testEnv.MARKET_CACHE.put("market:versions", JSON.stringify({ ...shared, readAt: Date.now() - ms }));
}

const snapshotVersion = async () => Number((await marketSql().query("select version from market_state"))[0]!.version);

describe("the market snapshot at the edge", () => {
  it("lets a warm expiration schedule answer with no database round trip, and a cold one with exactly one", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const { env, trips } = countedMarket();
    await bumpMarketVersion();
    const before = await trips();
    const cold = await callWith(env, "/v1/expirations/QQQ", auth);
    await contractBody(expirationsRoute, cold);
    expect(await trips()).toBe(before + 1);
    const warm = await callWith(env, "/v1/expirations/QQQ", auth);
    expect((await contractBody(expirationsRoute, warm)).symbol).toBe("QQQ");
    expect(await trips()).toBe(before + 1);
  });

  it("computes a cold value once however many requests miss it together", async () => {
    // Three accounts, four requests each: under the in-flight cap.
    const auths = await Promise.all([1, 2, 3].map(async () => bearer((await newAccount()).keys[0]!.key)));
    const { env, trips } = countedMarket();
    await bumpMarketVersion();
    const before = await trips();
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => callWith(env, "/v1/expirations/DIA", auths[i % 3])));
    const bodies = await Promise.all(responses.map((res) => contractBody(expirationsRoute, res)));
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(await trips()).toBe(before + 1);
  });

  it("serves a load on the edge that was told at once, and everywhere else once its copy ages out (≤ 15 s)", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const asOf = async () => (await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/SPY", auth))).asOf;
    await bumpMarketVersion();
    const told = await asOf();
    // A load nobody told the edge about: the edge keeps serving the versions it knows...
    await marketSql().query("update market_state set version = version + 1, as_of = now() + interval '1 minute'");
    expect(await asOf()).toBe(told);
    // ...until its copy is older than the bound (KV's copy 13 s, this isolate's 2 s).
    await ageSharedVersions(13_001);
    advanceClock(2_100);
    expect(await asOf()).not.toBe(told);
  });

  it("refreshes a copy older than 5 s behind the response: that request is not held up, the next one serves the load", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const { env, trips } = countedMarket();
    const asOf = async () => (await contractBody(expirationsRoute, await callWith(env, "/v1/expirations/SPY", auth))).asOf;
    await bumpMarketVersion();
    const told = await asOf();
    await marketSql().query("update market_state set version = version + 1, as_of = now() + interval '1 minute'");
    await ageSharedVersions(5_001);
    advanceClock(2_100);
    const before = await trips();
    expect(await asOf()).toBe(told);
    // Its one round trip was the versions read behind it (the schedule itself came from memory).
    expect(await trips()).toBe(before + 1);
    expect(await asOf()).not.toBe(told);
  });

  it("moves only the caches of the underlying a writer bumped, learnt within 15 s; the others stay warm", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    await createTestUnderlying("EDGV", 50, [addDays(etToday(), 30)], [45, 50, 55]);
    await createTestUnderlying("EDGW", 60, [addDays(etToday(), 30)], [55, 60, 65]);
    await bumpMarketVersion();
    const { env, trips } = countedMarket();
    const schedule = async (symbol: string) => contractBody(expirationsRoute, await callWith(env, `/v1/expirations/${symbol}`, auth));
    const v = await schedule("EDGV");
    const w = await schedule("EDGW");
    // The ingestor's bump, as its writers make it: EDGV's scope moves, with a newer data time.
    await marketSql().query(BUMP_SCOPES_SQL, [["EDGV"], new Date(Date.now() + 3_600_000).toISOString()]);
    expect((await schedule("EDGV")).asOf).toBe(v.asOf);
    await ageSharedVersions(13_001);
    advanceClock(2_100);
    const before = await trips();
    const moved = await schedule("EDGV");
    expect(moved.asOf).not.toBe(v.asOf);
    expect(Date.parse(moved.asOf!)).toBeGreaterThan(Date.now() + 3_000_000);
    // One round trip brought EDGV's schedule and every version change; EDGW is served warm.
    expect(await trips()).toBe(before + 1);
    expect(await schedule("EDGW")).toEqual(w);
    expect(await trips()).toBe(before + 1);
  });

  it("moves on a trade only the views that show trades (chain, option quotes); GEX, IV and the schedule stay warm", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const expiration = addDays(etToday(), 30);
    await createTestUnderlying("EDGT", 50, [expiration], [45, 50, 55]);
    await bumpMarketVersion();
    const { env, trips } = countedMarket();
    const views = {
      chain: async () => contractBody(chainRoute, await callWith(env, "/v1/chain/EDGT", auth)),
      quote: async () => (await callWith(env, `/v1/options/quotes/EDGT${expiration.slice(2).replaceAll("-", "")}C00050000`, auth)).json(),
      gex: async () => contractBody(gexRoute, await callWith(env, "/v1/gex/EDGT", auth)),
      iv: async () => contractBody(ivContextRoute, await callWith(env, "/v1/iv/EDGT", auth)),
      schedule: async () => contractBody(expirationsRoute, await callWith(env, "/v1/expirations/EDGT", auth)),
    };
    const before = {
      chain: await views.chain(),
      quote: await views.quote(),
      gex: await views.gex(),
      iv: await views.iv(),
      schedule: await views.schedule(),
    };
    // The trades writer's bump: the traded scopes of the contracts' underlying and root, with the trade's time.
    const tradedAt = new Date(Date.now() + 3_600_000).toISOString();
    await marketSql().query(BUMP_SCOPES_SQL, [[...tradedScopes([{ underlying: "EDGT", root: "EDGT" }])], tradedAt]);
    await ageSharedVersions(13_001);
    advanceClock(2_100);
    // The chain misses and moves to the trade's time (one round trip: its value and the version
    // changes); the option quote misses too (one more).
    const start = await trips();
    const chain = await views.chain();
    expect(Date.parse(chain.asOf!) - Date.parse(before.chain.asOf!)).toBeGreaterThan(3_000_000);
    expect(chain.contracts).toEqual(before.chain.contracts);
    expect(await trips()).toBe(start + 1);
    await views.quote();
    expect(await trips()).toBe(start + 2);
    // The rest are served as they were, with no round trip.
    expect(await views.gex()).toEqual(before.gex);
    expect(await views.iv()).toEqual(before.iv);
    expect(await views.schedule()).toEqual(before.schedule);
    expect(await trips()).toBe(start + 2);
  });

  it("moves the IV rankings with any underlying's intraday IV (the ingestor's MARKET_IV bump); the calendars stay warm", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    await bumpMarketVersion();
    const { env, trips } = countedMarket();
    const rankings = async () => contractBody(topIvRoute, await callWith(env, "/v1/stocks/top-iv", auth));
    const earnings = async () => contractBody(earningsRoute, await callWith(env, "/v1/earnings", auth));
    const before = { rankings: await rankings(), earnings: await earnings() };
    // A minute's IVs written: the quotes writer bumps the group's underlyings and MARKET_IV.
    await marketSql().query(BUMP_SCOPES_SQL, [["EDGV", MARKET_IV], new Date(Date.now() + 3_600_000).toISOString()]);
    await ageSharedVersions(13_001);
    advanceClock(2_100);
    // The calendar is served as it was (its one round trip reads the version changes, the copy being old);
    // the rankings then miss: one more, the same stored IVs read again.
    const start = await trips();
    expect(await earnings()).toEqual(before.earnings);
    expect(await trips()).toBe(start + 1);
    expect(await rankings()).toEqual(before.rankings);
    expect(await trips()).toBe(start + 2);
    expect(await earnings()).toEqual(before.earnings);
    expect(await trips()).toBe(start + 2);
  });

  it("never serves a schedule cached for an older snapshot as current", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    await bumpMarketVersion();
    const old = await snapshotVersion();
    await testEnv.MARKET_CACHE.put(
      `expirations:IWM:v${old}.0`,
      JSON.stringify({ value: { exists: true, expirations: ["2099-01-01"] }, asOf: null }),
    );
    await bumpMarketVersion();
    const body = await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/IWM", auth));
    expect(body.expirations.map((e) => e.expiration)).not.toContain("2099-01-01");
  });

  it("makes at most one database round trip on any data route cold, and none warm on those derived from the snapshot", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    await bumpMarketVersion();
    for (const { route, path, init } of sampleRequests((r) => r.access === "entitled")) {
      // A fresh copy of the versions, as under traffic: none is refreshed behind these requests.
      await admin.refreshSnapshot();
      const { env, trips } = countedMarket();
      expect((await callWith(env, path, init(auth))).status, path).toBe(200);
      const cold = await trips();
      expect(cold, path).toBeLessThanOrEqual(1);
      expect((await callWith(env, path, init(auth))).status, path).toBe(200);
      if (route.caching === "snapshot") expect(await trips(), `${path} warm`).toBe(cold);
    }
  });

  it("renders a warm response once: stored gzip bytes for a client that takes gzip, the same JSON as text for one that does not", async () => {
    const key = (await newAccount()).keys[0]!.key;
    const auth = bearer(key);
    await bumpMarketVersion();
    const path = "/v1/chain/SPY?maxDte=60&limit=40";
    const plain = await callWith({}, path, auth);
    const text = await plain.text();
    expect(plain.headers.get("Content-Encoding")).toBeNull();
    expect(plain.headers.get("Vary")).toBe("Accept-Encoding");
    for (const accept of ["gzip", "br, gzip;q=0.5", "*", "GZIP , deflate"]) {
      const res = await callWith({}, path, bearer(key, { "Accept-Encoding": accept }));
      expect(res.headers.get("Content-Encoding"), accept).toBe("gzip");
      expect(res.headers.get("Content-Type")).toBe("application/json");
      expect(res.headers.get("X-RateLimit-Limit")).not.toBeNull();
      const inflated = await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
      expect(inflated, accept).toBe(text);
    }
    for (const accept of ["gzip;q=0", "identity", "*;q=0", "deflate, *;q=0.1, gzip;q=0"]) {
      const res = await callWith({}, path, bearer(key, { "Accept-Encoding": accept }));
      expect(res.headers.get("Content-Encoding"), accept).toBeNull();
      expect(await res.text(), accept).toBe(text);
    }
    // A small body is sent as it is.
    const small = await callWith({}, "/v1/iv/SPY", bearer(key, { "Accept-Encoding": "gzip" }));
    expect(small.headers.get("Content-Encoding")).toBeNull();
    await contractBody(ivContextRoute, small);
  });

  it("keeps rendered responses apart by path and query, today and snapshot", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    await bumpMarketVersion();
    const near = await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/SPY?maxDte=30", auth));
    const far = await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/SPY?maxDte=400", auth));
    expect(far.expirations.length).toBeGreaterThan(near.expirations.length);
    expect((await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/SPY?maxDte=30", auth))).expirations).toEqual(
      near.expirations,
    );
    // Another day (a replay's pinned clock): its own DTEs, not the cached ones.
    const tomorrow = addDays(etToday(), 1);
    const replay = await contractBody(
      expirationsRoute,
      await callWith({ MARKET_CLOCK: `${tomorrow}T15:00:00Z` }, "/v1/expirations/SPY?maxDte=30", auth),
    );
    expect(replay.expirations[0]!.dte).toBe(near.expirations.find((e) => e.expiration === replay.expirations[0]!.expiration)!.dte - 1);
    // A new load: a new snapshot time, never the rendered body of the old one.
    await bumpMarketVersion();
    const reloaded = await contractBody(expirationsRoute, await callWith({}, "/v1/expirations/SPY?maxDte=30", auth));
    expect(reloaded.asOf).not.toBe(near.asOf);
  });
});
