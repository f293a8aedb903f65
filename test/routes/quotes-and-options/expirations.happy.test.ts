import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, bumpMarketVersion, createTestUnderlying, daysBetween, etToday, marketSql } from "../../support/market-db";
import { expirationsRoute } from "../../../src/routes/quotes-and-options/expirations";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
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
});
