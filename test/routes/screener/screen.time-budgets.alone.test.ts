import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { countedAlias } from "../../support/counted-database";
import { marketSql } from "../../support/market-db";
import { expectedCount, screenClient } from "../../support/screen-fixture";
import { callWith, expectError, testEnv, type TestBindings } from "../../support/worker";
import { screenRoute } from "../../../src/routes/screener/screen";

/**
 * Runs alone, after every other test file (`*.alone.test.ts`, vitest.config.ts): it fills the
 * shared screener table with 30,000 rows and locks it for 3 s, which no concurrent screen may see.
 */
let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

const { screen } = screenClient(() => auth);

/**
 * Time budgets, on PostgreSQL only (PGlite has no statement timer). A large underlying no index
 * narrows for a count makes counting read all of it; the local endpoint counts the round trips
 * of a market database alias of the test's own.
 */
describe("screen time budgets", () => {
  let postgres = false;
  beforeAll(async () => {
    const sql = marketSql();
    const [engine] = await sql.query("select version() as v");
    postgres = !/emscripten|wasm/i.test(engine!.v as string);
    if (!postgres) return;
    await sql.query(
      `insert into screener_contracts
       select r.* from screener_contracts s cross join generate_series(1, 30000) g
       cross join lateral jsonb_populate_record(null::screener_contracts, to_jsonb(s) || jsonb_build_object('option_key', 'ZZBIG' || g, 'symbol', 'ZZBIG')) r
       where s.option_key = (select min(option_key) from screener_contracts)`,
    );
  });
  afterAll(async () => {
    if (postgres) await marketSql().query("delete from screener_contracts where symbol = 'ZZBIG'");
  });

  const screenWith = (overrides: Partial<TestBindings>, body: unknown) =>
    callWith(overrides, "/v1/contracts/screen", {
      ...auth,
      method: "POST",
      headers: { ...(auth.headers as Record<string, string>), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  const xlf = { pageSize: 5, filters: [{ field: "symbol", operation: "like", value: "xlf" }] };

  it("a count past its budget is -1 and the page still comes, read once in a second round trip", async (ctx) => {
    if (!postgres) ctx.skip();
    const market = countedAlias(testEnv.MARKET_DATABASE_URL, "market");
    // Fewer matches than the cap: counting must read the whole table, far past a 1 ms budget.
    const res = await screenWith({ MARKET_DATABASE_URL: market.url, SCREENER_COUNT_BUDGET_MS: "1" }, xlf);
    const body = await contractBody(screenRoute, res);
    expect(body).toMatchObject({ count: -1, countCapped: false, hasMore: true });
    expect(body.results).toHaveLength(5);
    expect(body.results.every((r) => r.symbol === "XLF")).toBe(true);
    expect(await market.trips()).toBe(2);
    expect((await screen(xlf)).count).toBe(await expectedCount("symbol = 'XLF'"));
  });

  it("a page past its own budget is 503 query_timeout with Retry-After, in one round trip: never read twice", async (ctx) => {
    if (!postgres) ctx.skip();
    const market = countedAlias(testEnv.MARKET_DATABASE_URL, "market");
    // 90% of 280 ms less the count's 250 leaves the page 2 ms: too little to sort 30,000 rows and skip 99,900.
    const res = await screenWith(
      { MARKET_DATABASE_URL: market.url, QUERY_TIMEOUT_MS: "280", SCREENER_COUNT_BUDGET_MS: "250" },
      { page: 1000, pageSize: 100, filters: [{ field: "cushion", operation: "sort", value: "desc" }] },
    );
    await expectError(res, 503, "query_timeout");
    expect(res.headers.get("Retry-After")).toBe("2");
    expect(await market.trips()).toBe(1);
  });

  it("Postgres stops a page stuck behind a lock itself, before the client's deadline, and nothing is left waiting", async (ctx) => {
    if (!postgres) ctx.skip();
    const sql = marketSql();
    // One transaction holding the table for 3 s: every read of it waits until its statement timer fires. Sent
    // as the protocol's raw request, not through the driver, whose round-trip deadline the Worker under test sets.
    const market = new URL(testEnv.MARKET_DATABASE_URL);
    const holder = fetch(`http://${market.host}/sql`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Neon-Connection-String": market.toString() },
      body: JSON.stringify({
        queries: [
          { query: "lock table screener_contracts in access exclusive mode", params: [] },
          { query: "select pg_sleep(3)", params: [] },
        ],
      }),
    });
    const held = async () =>
      (
        await sql.query(
          "select count(*)::int as n from pg_locks where relation = 'screener_contracts'::regclass and mode = 'AccessExclusiveLock' and granted",
        )
      )[0]!.n === 1;
    while (!(await held())) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    // Count 250 ms, then the page alone 90% of 2,000 less 250 = 1,550 ms; the client would wait 2,000 per trip.
    const res = await screenWith({ QUERY_TIMEOUT_MS: "2000", SCREENER_COUNT_BUDGET_MS: "250" }, xlf);
    await expectError(res, 503, "query_timeout");
    expect(Date.now() - started).toBeLessThan(2_000 + 250);
    const waiting = await sql.query(
      "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%from \"screener_contracts\"%'",
    );
    expect(waiting[0]!.n).toBe(0);
    expect((await holder).status).toBe(200);
  });
});
