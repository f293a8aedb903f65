import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { createTestUnderlying, marketSql } from "../../support/market-db";
import { testEnv } from "../../support/worker";

type Quote = { symbol: string; name: string; price: number; asOf: string | null };
let api: ApiClient;
const vendorCalls = async (): Promise<Record<string, number>> => (await fetch(`${testEnv.QUOTE_PROVIDER_URL}/__calls`)).json();

beforeAll(async () => {
  api = await apiClient();
  for (const symbol of ["SLOW", "BADJSON", "DOWN", "FLAKY", "LOCKED", "WEIRD"]) await createTestUnderlying(symbol, 17.25, [], []);
  await marketSql().query("update equity_quotes set as_of = null where symbol = 'WEIRD'");
});

describe("GET /v1/quotes/{symbol}", () => {
  it("answers the vendor's price with its time (recorded payload)", async () => {
    const res = await api.get("/v1/quotes/AAPL");
    expect(res.status).toBe(200);
    expect(await res.json<Quote>()).toEqual({
      symbol: "AAPL",
      name: "Apple Inc.",
      price: 229.87,
      asOf: new Date(1763672400 * 1000).toISOString(),
    });
  });

  it("retries a transient failure once, and does not retry a permanent one", async () => {
    const before = await vendorCalls();
    expect((await (await api.get("/v1/quotes/FLAKY")).json<Quote>()).price).toBe(41.5);
    await api.get("/v1/quotes/LOCKED");
    const after = await vendorCalls();
    expect((after.FLAKY ?? 0) - (before.FLAKY ?? 0)).toBe(2);
    expect((after.LOCKED ?? 0) - (before.LOCKED ?? 0)).toBe(1);
  });

  it("falls back to the stored quote when the vendor times out, sends a malformed body, fails or refuses", async () => {
    for (const symbol of ["SLOW", "BADJSON", "DOWN", "LOCKED"]) {
      const started = Date.now();
      const res = await api.get(`/v1/quotes/${symbol}`);
      expect(res.status, symbol).toBe(200);
      const body = await res.json<Quote>();
      expect(body).toMatchObject({ symbol, price: 17.25, asOf: expect.stringMatching(/Z$/) });
      expect(Date.now() - started, symbol).toBeLessThan(2_000);
    }
  });

  it("asks the vendor once per symbol in two seconds, failures included, and answers the same meanwhile", async () => {
    const before = await vendorCalls();
    const answers: Quote[] = [];
    for (let i = 0; i < 5; i++) answers.push(await (await api.get("/v1/quotes/AAPL")).json<Quote>());
    const down: number[] = [];
    for (let i = 0; i < 3; i++) down.push((await api.get("/v1/quotes/DOWN")).status);
    const after = await vendorCalls();
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.price).toBe(229.87);
    expect(down).toEqual([200, 200, 200]);
    // At most one call (an AAPL answer may still be fresh from an earlier test: then none); DOWN's two attempts once.
    expect((after.AAPL ?? 0) - (before.AAPL ?? 0)).toBeLessThanOrEqual(1);
    expect((after.DOWN ?? 0) - (before.DOWN ?? 0)).toBeLessThanOrEqual(2);
  });

  it("answers asOf null for a stored fallback without a time", async () => {
    expect(await (await api.get("/v1/quotes/WEIRD")).json<Quote>()).toMatchObject({ price: 17.25, asOf: null });
  });

  it("uses the stored quote when the vendor does not know the symbol", async () => {
    const [stored] = await marketSql().query("select price from equity_quotes where symbol = 'SPY'");
    expect((await (await api.get("/v1/quotes/SPY")).json<Quote>()).price).toBe(stored!.price);
  });
});
