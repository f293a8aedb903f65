import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, bumpMarketVersion, createTestUnderlying, daysBetween, etToday, marketSql } from "../../support/market-db";
import { chainRoute, type Chain } from "../../../src/routes/quotes-and-options/chain";
import { expirationsRoute } from "../../../src/routes/quotes-and-options/expirations";
import type { OptionQuote as Contract } from "../../../src/routes/quotes-and-options/option-contract";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;
const chain = async (query: string, symbol = "SPY") => {
  const res = await api.get(`/v1/chain/${symbol}${query ? `?${query}` : ""}`);
  return { res, body: await contractBody(chainRoute, res) };
};

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

  it("refuses forged, corrupted and foreign cursors with 400 invalid_parameter", async () => {
    const { body } = await chain("limit=10");
    const cursor = body.nextCursor!;
    const [payload, mac] = cursor.split(".");
    // The real cursor's shape with another position, signed with the real cursor's MAC.
    const forgedPayload = btoa(JSON.stringify([[["2099-01-01", 1, "call", "SPY"], 1], "x"])).replace(/=+$/, "");
    for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${mac!.slice(0, -2)}AA`, "garbage", `${payload}.${mac}.x`, "%%%"]) {
      await expectError(await api.get(`/v1/chain/SPY?limit=10&cursor=${encodeURIComponent(bad)}`), 400, "invalid_parameter");
    }
    // A cursor continues only the query it came from.
    await expectError(await api.get(`/v1/chain/SPY?limit=10&side=put&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/chain/QQQ?limit=10&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
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

  it("answers 400 for bad values and ranges, 404 for unknown symbols", async () => {
    await expectError(await api.get("/v1/chain/SPY?strikeMin=600&strikeMax=500"), 400, "invalid_range");
    for (const q of [
      "limit=0",
      "limit=abc",
      "limit=2.5",
      "strikeMin=abc",
      "strikeMin=0x10",
      "minOI=-1",
      "side=both",
      "expiration=2026-02-30",
      "expiration=tomorrow",
      "maxDte=1e3",
    ]) {
      await expectError(await api.get(`/v1/chain/SPY?${q}`), 400, "invalid_parameter");
    }
    await expectError(await api.get("/v1/chain/spy"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/TOOLONGSYMBOL"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/ZZZZ"), 404, "not_found");
  });

  it("accepts expiration dates of the years 0001-9999 only: year 0000 is a 400 naming the parameter, not a 500", async () => {
    for (const date of ["0000-01-01", "0000-12-31", "0000-02-29"]) {
      const error = await expectError(await api.get(`/v1/chain/SPY?expiration=${date}`), 400, "invalid_parameter");
      expect(error.message).toMatch(/'expiration'.*0001-9999/);
    }
    for (const date of ["0001-01-01", "9999-12-31"]) {
      const { body } = await chain(`expiration=${date}`);
      expect(body.contracts).toEqual([]);
    }
  });

  it("answers an empty page with the underlying's spot when nothing matches", async () => {
    const { body } = await chain("strikeMin=99999");
    expect(body).toMatchObject({ contracts: [], truncated: false, nextCursor: null });
    expect(body.underlyingPrice).toBeGreaterThan(0);
  });
});

describe("GET /v1/expirations/{symbol}", () => {
  it("lists expirations chronologically within 0-365 DTE by default", async () => {
    const res = await api.get("/v1/expirations/SPY");
    const body = await contractBody(expirationsRoute, res);
    const today = etToday();
    const stored = await marketSql().query(
      "select distinct expiration::text as e from option_quotes where underlying = 'SPY' and expiration between $1::date and $2::date order by 1",
      [today, addDays(today, 365)],
    );
    expect(body.expirations.map((e) => e.expiration)).toEqual(stored.map((r) => r.e));
    for (const e of body.expirations) expect(e.dte).toBe(daysBetween(today, e.expiration));
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
  });

  it("filters with minDte/dteMin and maxDte/dteMax (0 means unset)", async () => {
    const window = async (q: string) => (await api.read(expirationsRoute, `/v1/expirations/SPY?${q}`)).expirations.map((e) => e.dte);
    const w = await window("minDte=7&maxDte=40");
    expect(w.length).toBeGreaterThan(0);
    expect(w.every((d) => d >= 7 && d <= 40)).toBe(true);
    expect(await window("dteMin=7&dteMax=40")).toEqual(w);
    expect(await window("maxDte=0")).toEqual(await window("maxDte=365"));
    // A window past the default maximum is empty, not an error; only an explicit inverted window is.
    expect(await window("minDte=400")).toEqual([]);
    await expectError(await api.get("/v1/expirations/SPY?minDte=40&maxDte=7"), 400, "invalid_range");
    await expectError(await api.get("/v1/expirations/SPY?minDte=x"), 400, "invalid_parameter");
  });

  it("sees a new load at once (the cache is keyed by snapshot version)", async () => {
    const today = etToday();
    await createTestUnderlying("EXPT", 20, [addDays(today, 3), addDays(today, 10)], [20]);
    const schedule = async () => (await api.read(expirationsRoute, "/v1/expirations/EXPT")).expirations.map((e) => e.expiration);
    const before = await schedule();
    expect(before).toEqual([addDays(today, 3), addDays(today, 10)]);
    const fresh = addDays(today, 200);
    await createTestUnderlying("EXPT", 20, [addDays(today, 3), addDays(today, 10), fresh], [20]);
    expect(await schedule()).toEqual(before);
    await bumpMarketVersion();
    expect(await schedule()).toEqual([...before, fresh]);
  });

  it("answers 404 for unknown symbols, 400 for malformed or missing ones", async () => {
    await expectError(await api.get("/v1/expirations/NOPE"), 404, "not_found");
    await expectError(await api.get("/v1/expirations/sp%20y"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/expirations/"), 400, "missing_symbol");
  });
});
