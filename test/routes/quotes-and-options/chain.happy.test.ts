import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { chainReader } from "../../support/chain-fixture";
import { addDays, bumpMarketVersion, createTestUnderlying, daysBetween, etToday, marketSql } from "../../support/market-db";
import type { Chain } from "../../../src/routes/quotes-and-options/chain";
import type { OptionQuote as Contract } from "../../../src/routes/quotes-and-options/option-contract";
import { expectError } from "../../support/worker";

let api: ApiClient;
const chain = chainReader(() => api);

const order = (c: Contract) => [c.expiration, c.strike.toFixed(3).padStart(12, "0"), c.side].join("|");
const expectSorted = (contracts: Contract[]) => expect(contracts.map(order)).toEqual([...contracts.map(order)].sort());

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/chain/{symbol}", () => {
  const stored = async (maxDte: number) =>
    (
      (await marketSql().query(
        "select count(*)::int as n from option_quotes where underlying = 'SPY' and expiration between $1::date and $2::date",
        [etToday(), addDays(etToday(), maxDte)],
      )) as [{ n: number }]
    )[0].n;

  it("defaults to 0-45 DTE, sorted by expiration, strike and type, with the default limit of 500 clamped (header)", async () => {
    const { res, body } = await chain("");
    expect(res.headers.get("X-Limit-Clamped")).toBe("true");
    const n = await stored(45);
    expect(body.contracts).toHaveLength(Math.min(n, 250));
    expect(body.symbol).toBe("SPY");
    expect(body.underlyingPrice).toBe(body.contracts[0]!.underlyingPrice);
    expect(body.asOf).toMatch(/Z$/);
    expectSorted(body.contracts);
    for (const c of body.contracts) expect(c.dte >= 0 && c.dte <= 45).toBe(true);
  });

  it("returns at most 250 rows per page and says when more match", async () => {
    expect(await stored(365)).toBeGreaterThan(250);
    const { res, body } = await chain("maxDte=365&limit=1000");
    expect(res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(body.contracts).toHaveLength(250);
    expect(body.truncated).toBe(true);
    expect(body.nextCursor).toEqual(expect.any(String));
  });

  it("clamps any larger limit instead of refusing it", async () => {
    const { res, body } = await chain("limit=100000000000&maxDte=365");
    expect(res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(body.contracts).toHaveLength(250);
    await expectError(await api.get("/v1/chain/SPY?limit=0"), 400, "invalid_parameter");
  });

  it("does not clamp a limit within the plan", async () => {
    const { res, body } = await chain("limit=100");
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
    expect(body.contracts).toHaveLength(100);
  });

  it("pages through every matching contract exactly once by following nextCursor", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let firstSpot: number | undefined;
    do {
      const { body }: { body: Chain } = await chain(`limit=120&maxDte=60${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expectSorted(body.contracts);
      firstSpot ??= body.underlyingPrice;
      expect(body.underlyingPrice).toBe(firstSpot);
      seen.push(...body.contracts.map((c) => c.optionSymbol));
      expect(body.truncated).toBe(body.nextCursor !== null);
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 50);
    const expected = await marketSql().query(
      "select option_symbol from option_quotes where underlying = 'SPY' and expiration between $1::date and $2::date order by expiration, strike, side, root",
      [etToday(), addDays(etToday(), 60)],
    );
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected.map((r) => r.option_symbol));
    expect(pages).toBeGreaterThan(1);
  });

  it("never overlaps or repeats when new data is loaded between pages, and keeps page 1's spot", async () => {
    const today = etToday();
    const expirations = [5, 12, 19].map((d) => addDays(today, d));
    await createTestUnderlying("PGNT", 50, expirations, [40, 45, 50, 55, 60]);
    const first = (await chain("limit=8&side=call", "PGNT")).body;
    const last = first.contracts.at(-1)!;
    // A new load between the two requests: contracts before and after the cursor, and a new spot.
    const sql = marketSql();
    const insert = (exp: string, strike: number) =>
      sql.query(
        `insert into option_quotes (option_symbol, underlying, root, expiration, strike, side, settlement, bid, ask, underlying_price, as_of)
         values ($1, 'PGNT', 'PGNT', $2, $3, 'call', 'pm', 1, 1.1, 999, now())`,
        [`PGNT${exp.slice(2, 4)}${exp.slice(5, 7)}${exp.slice(8, 10)}C${String(Math.round(strike * 1000)).padStart(8, "0")}`, exp, strike],
      );
    await insert(expirations[0]!, 41);
    await insert(last.expiration, last.strike + 1);
    await sql.query("update option_quotes set underlying_price = 999 where underlying = 'PGNT'");
    await bumpMarketVersion();
    const second = (await chain(`limit=8&side=call&cursor=${encodeURIComponent(first.nextCursor!)}`, "PGNT")).body;
    const firstSymbols = new Set(first.contracts.map((c) => c.optionSymbol));
    expect(second.contracts.some((c) => firstSymbols.has(c.optionSymbol))).toBe(false);
    expect(order(second.contracts[0]!) > order(last)).toBe(true);
    expect(second.contracts[0]!.strike).toBe(last.strike + 1);
    expect(second.underlyingPrice).toBe(50);
    expect(first.underlyingPrice).toBe(50);
  });

  it("filters by side, strike range, expiration, open interest and volume (with aliases)", async () => {
    const puts = (await chain("side=put&limit=250")).body.contracts;
    expect(puts.length).toBeGreaterThan(0);
    expect(puts.every((c) => c.side === "put")).toBe(true);
    const strikes = (await chain("strikeMin=580&strikeMax=600&limit=250")).body.contracts;
    expect(strikes.length).toBeGreaterThan(0);
    expect(strikes.every((c) => c.strike >= 580 && c.strike <= 600)).toBe(true);
    const exp = puts[0]!.expiration;
    const one = (await chain(`expiration=${exp}&limit=250`)).body.contracts;
    expect(new Set(one.map((c) => c.side))).toEqual(new Set(["call", "put"]));
    expect(one.every((c) => c.expiration === exp)).toBe(true);
    for (const [name, field] of [
      ["minOI", "openInterest"],
      ["oiMin", "openInterest"],
      ["minVolume", "volume"],
      ["volumeMin", "volume"],
    ] as const) {
      const rows = (await chain(`${name}=500&limit=250`)).body.contracts;
      expect(rows.length, name).toBeGreaterThan(0);
      expect(
        rows.every((c) => (c[field] ?? 0) >= 500),
        name,
      ).toBe(true);
    }
  });

  it("filters on absolute delta, normalising signed put deltas", async () => {
    const rows = (await chain("deltaMin=-0.3&deltaMax=0.5&limit=250")).body.contracts;
    expect(rows.some((c) => c.side === "put")).toBe(true);
    expect(rows.every((c) => c.delta !== null && Math.abs(c.delta) >= 0.3 - 1e-9 && Math.abs(c.delta) <= 0.5 + 1e-9)).toBe(true);
    await expectError(await api.get("/v1/chain/SPY?deltaMin=1.5"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/SPY?deltaMax=-1.01"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/SPY?deltaMin=0.6&deltaMax=0.2"), 400, "invalid_range");
  });

  it("applies the DTE window: minDte/dteMin, maxDte/dteMax, default minDte + 45, 0 means unset", async () => {
    const today = etToday();
    const dtes = async (q: string) =>
      (await chain(`${q}&limit=250&side=call&strikeMin=590&strikeMax=595`)).body.contracts.map((c) => daysBetween(today, c.expiration));
    const window = await dtes("minDte=10");
    expect(Math.min(...window)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...window)).toBeLessThanOrEqual(55);
    expect(await dtes("dteMin=10")).toEqual(window);
    const long = await dtes("minDte=30&maxDte=200");
    expect(Math.max(...long)).toBeGreaterThan(75);
    expect(await dtes("dteMin=30&dteMax=200")).toEqual(long);
    expect(await dtes("maxDte=0")).toEqual(await dtes("maxDte=45"));
    expect(Math.max(...(await dtes("maxDte=5")))).toBeLessThanOrEqual(5);
    await expectError(await api.get("/v1/chain/SPY?minDte=30&maxDte=10"), 400, "invalid_range");
    await expectError(await api.get("/v1/chain/SPY?minDte=3&dteMin=4"), 400, "invalid_parameter");
  });

  it("answers an empty page with the underlying's spot when nothing matches", async () => {
    const { body } = await chain("strikeMin=99999");
    expect(body).toMatchObject({ contracts: [], truncated: false, nextCursor: null });
    expect(body.underlyingPrice).toBeGreaterThan(0);
  });
});
