import { beforeAll, describe, expect, it } from "vitest";
import { ivContextRoute } from "../../../src/routes/volatility/iv-context";
import vectors from "../../fixtures/volatility-gex-vectors.json";
import { apiClient, type ApiClient } from "../../support/api-client";
import { contractBody } from "../../support/contract";
import { vixCloses } from "../../support/vix-closes";
import { addDays, bumpMarketVersion, daysBetween, loadedSession, marketSql } from "../../support/market-db";

const closes = vixCloses.map((c) => ({ date: c.date, iv: c.close }));

let api: ApiClient;
let session: string;
beforeAll(async () => {
  api = await apiClient();
  session = await loadedSession();
});

/**
 * Stores a VIX window as the daily IV of a fresh index symbol, shifted so that `vectorDate` is the
 * loaded session (the 52-week window is calendar days, so a shift keeps it), then tells the edge.
 */
async function storeVixAs(symbol: string, vectorDate: string, keep: (rows: typeof closes) => typeof closes): Promise<void> {
  const shift = daysBetween(vectorDate, session);
  const sql = marketSql();
  await sql.query(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
     values ($1, 'VIX as IV (test)', 'index', 'https://example.com/vix.png', false, false) on conflict do nothing`,
    [symbol],
  );
  const rows = keep(closes.filter((c) => c.date <= vectorDate));
  await sql.query(
    `insert into iv_daily (symbol, date, iv) select $1, d::date, v from unnest($2::text[], $3::float8[]) as t(d, v)
     on conflict (symbol, date) do update set iv = excluded.iv`,
    [symbol, rows.map((r) => addDays(r.date, shift)), rows.map((r) => r.iv / 100)],
  );
  await bumpMarketVersion();
}

describe("GET /v1/iv/{symbol}", () => {
  it("answers the IV context of a listed stock from the loaded session", async () => {
    const body = await contractBody(ivContextRoute, await api.get("/v1/iv/SPY"));
    expect(body.symbol).toBe("SPY");
    expect(body.asOf).toBe(session);
    expect(body.currentIV).toBeGreaterThan(0);
    expect(body.ivHigh52w).toBeGreaterThanOrEqual(body.currentIV);
    expect(body.ivLow52w).toBeLessThanOrEqual(body.currentIV);
    expect(body.ivr).not.toBeNull();
    expect(body.ivp).not.toBeNull();
  });

  const v = vectors.ivRankPercentile_VIXasIV["2022-06-10"];

  it("ranks a 365-day window as the published VIX vector does (2022-06-10)", async () => {
    await storeVixAs("VIXCAL", "2022-06-10", (rows) => rows.filter((r) => r.date > addDays("2022-06-10", -365)));
    const body = await contractBody(ivContextRoute, await api.get("/v1/iv/VIXCAL"));
    expect(body.currentIV).toBeCloseTo(v.vixClose, 8);
    expect(body.ivHigh52w).toBeCloseTo(v.window365cal_high, 8);
    expect(body.ivLow52w).toBeCloseTo(v.window365cal_low, 8);
    expect(body.ivr!).toBeCloseTo(v.ivRank_365cal, 3);
  });

  it("gives the strictly-below percentile of the 251 prior sessions, and null below 20 observations", async () => {
    await storeVixAs("VIXSES", "2022-06-10", (rows) => rows.slice(-252));
    const body = await contractBody(ivContextRoute, await api.get("/v1/iv/VIXSES"));
    expect(body.ivr!).toBeCloseTo(v.ivRank_252, 3);
    expect(body.ivp!).toBeCloseTo(v.ivPercentile_strictlyBelow_prior251, 3);

    await storeVixAs("VIXNEW", "2022-06-10", (rows) => rows.slice(-20));
    const young = await contractBody(ivContextRoute, await api.get("/v1/iv/VIXNEW"));
    expect(young.ivp).toBeNull();
    expect(young.ivr).not.toBeNull();
  });

  it("answers zeros and nulls for an underlying without any IV", async () => {
    await storeVixAs("NOIVX", "2022-06-10", () => []);
    const body = await contractBody(ivContextRoute, await api.get("/v1/iv/NOIVX"));
    expect(body).toMatchObject({ currentIV: 0, ivr: null, ivp: null, ivHigh52w: 0, ivLow52w: 0, asOf: session });
  });
});
