import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, etToday, marketSql } from "../../support/market-db";
import { arrangePrints } from "../../support/flow-fixture";
import { retainedSessions } from "../../support/flow-sessions";
import { flowRoute, type Flow } from "../../../src/routes/flow/flow";
import { sessionOnOrBefore, sessionOpenAt } from "../../../src/domain/calendar";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;
const flow = async (query = "") => {
  const res = await api.get(`/v1/flow${query ? `?${query}` : ""}`);
  return { res, body: await contractBody(flowRoute, res) };
};

let newest: string;
let asOf: string;
/** The retained sessions, oldest first (the newest is the feed's). */
let sessions: string[];

/** What the database holds for a filter, to check answers against. */
async function stored(where: string, params: unknown[] = []): Promise<{ n: number; top: number[] }> {
  const rows = (await marketSql().query(
    `select premium from flow_prints where print_class <> 'canceled' and ${where} order by premium desc`,
    params,
  )) as { premium: number }[];
  return { n: rows.length, top: rows.slice(0, 50).map((r) => r.premium) };
}

const CAP_TICKER = "CAPX";

const capped = (n: number) => Math.min(n, 10_000);

beforeAll(async () => {
  api = await apiClient();
  ({ newest, asOf, sessions } = await retainedSessions());
  expect(newest).toBe(sessionOnOrBefore(etToday()));
  // 10,001 small prints of one ticker in the newest session, early in the day (the feed's newest trade is unchanged).
  const open = sessionOpenAt(newest).getTime();
  await marketSql().query("delete from flow_prints where ticker = $1", [CAP_TICKER]);
  await marketSql().query(
    `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
       side, sentiment, execution_type, volume, is_etf_or_index)
     select to_timestamp(($1::float8 + i) / 1000), $2::date, $3, $3 || '271217C00050000', 'call', 50, '2027-12-17', 0.01, 1, 1,
            'ask', 'bullish', 'split', i, false
       from generate_series(1, 10001) i`,
    [open, newest, CAP_TICKER],
  );
  await arrangePrints("CANX", [
    { ticker: "CANX", executedAt: new Date(open + 60_000).toISOString(), sessionDate: newest, price: 5, size: 100, printClass: "canceled" },
    { ticker: "CANX", executedAt: new Date(open + 120_000).toISOString(), sessionDate: newest, price: 5, size: 100 },
  ]);
});

describe("GET /v1/flow", () => {
  it("defaults to the newest session, premium descending, prints of at least $10,000, 50 of them", async () => {
    const { res, body } = await flow();
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
    const expected = await stored("session_date = $1::date and premium >= 10000", [newest]);
    expect(expected.n).toBeGreaterThan(50);
    expect(body).toMatchObject({ asOf, retentionDays: 7, fromDate: newest, toDate: newest, count: expected.n, countCapped: false });
    expect(body.prints.map((p) => p.premium)).toEqual(expected.top);
    const p = body.prints[0]!;
    expect(p.premium).toBeCloseTo(p.price * p.size * 100, 2);
    expect(p.dte).toBe(Math.round((Date.parse(p.expiration) - Date.parse(newest)) / 86_400_000));
    expect(p.executedAt.slice(0, 10) >= newest).toBe(true);
  });

  it("answers asOf as the newest trade of the whole feed, whatever the filters", async () => {
    const { body } = await flow(`symbol=${CAP_TICKER}&minPremium=0&sort=time&limit=1`);
    expect(body.asOf).toBe(asOf);
    expect(body.prints[0]!.executedAt < asOf).toBe(true);
  });

  it("caps count at 10,000 with countCapped", async () => {
    const { body } = await flow(`symbol=${CAP_TICKER}&minPremium=0`);
    expect(body).toMatchObject({ count: 10_000, countCapped: true });
    expect(body.prints).toHaveLength(50);
    const under = await flow(`symbol=${CAP_TICKER}&minPremium=0&from=${newest}&to=${newest}&type=put`);
    expect(under.body).toMatchObject({ count: 0, countCapped: false, prints: [] });
  });

  it("never lists canceled prints", async () => {
    const { body } = await flow("symbol=CANX&minPremium=0");
    expect(body.count).toBe(1);
    expect(body.prints.map((p) => p.premium)).toEqual([50_000]);
  });

  it("takes minPremium, smaller than the default too, and refuses a negative or non-numeric one", async () => {
    const all = await flow("minPremium=0&limit=1");
    expect(all.body.count).toBe(capped((await stored("session_date = $1::date", [newest])).n));
    const big = await flow("minPremium=100000");
    expect(big.body.count).toBe((await stored("session_date = $1::date and premium >= 100000", [newest])).n);
    expect(big.body.prints.every((p) => p.premium >= 100_000)).toBe(true);
    for (const bad of ["-1", "abc", "1e5", "0x10"])
      await expectError(await api.get(`/v1/flow?minPremium=${bad}`), 400, "invalid_parameter");
  });

  it("filters by sentiment, side, type/optionType and executionType/execution", async () => {
    const cases: [string, string, (p: Flow["prints"][number]) => boolean][] = [
      ["sentiment=bullish", "sentiment = 'bullish'", (p) => p.sentiment === "bullish"],
      ["sentiment=neutral", "sentiment = 'neutral'", (p) => p.sentiment === "neutral"],
      ["side=ask", "side = 'ask'", (p) => p.side === "ask"],
      ["side=mid", "side = 'mid'", (p) => p.side === "mid"],
      ["type=put", "option_type = 'put'", (p) => p.optionType === "put"],
      ["optionType=call", "option_type = 'call'", (p) => p.optionType === "call"],
      ["executionType=block", "execution_type = 'block'", (p) => p.executionType === "block"],
      ["execution=sweep", "execution_type = 'sweep'", (p) => p.executionType === "sweep"],
    ];
    for (const [query, where, holds] of cases) {
      const { body } = await flow(`${query}&minPremium=0&limit=250`);
      const expected = await stored(`session_date = $1::date and ${where}`, [newest]);
      expect(body.count, query).toBe(capped(expected.n));
      expect(body.count, query).toBeGreaterThan(0);
      expect(body.prints.every(holds), query).toBe(true);
    }
    for (const bad of ["sentiment=happy", "side=unknown", "type=calls", "executionType=single", "sort=size"]) {
      await expectError(await api.get(`/v1/flow?${bad}`), 400, "invalid_parameter");
    }
  });

  it("takes symbol/ticker and symbols/tickers (at most 20, distinct), refusing more or malformed ones", async () => {
    const spy = await flow("symbol=SPY&minPremium=0");
    expect(spy.body.prints.every((p) => p.ticker === "SPY")).toBe(true);
    expect(spy.body.count).toBe((await stored("session_date >= $1::date and ticker = 'SPY'", [newest])).n);
    expect((await flow("ticker=SPY&minPremium=0")).body).toEqual(spy.body);
    const two = await flow("symbols=SPY,QQQ,SPY&minPremium=0&limit=250");
    expect(new Set(two.body.prints.map((p) => p.ticker))).toEqual(new Set(["SPY", "QQQ"]));
    expect(two.body.count).toBe((await stored("session_date >= $1::date and ticker in ('SPY', 'QQQ')", [newest])).n);
    expect((await flow("tickers=SPY,QQQ&minPremium=0&limit=250")).body).toEqual(two.body);
    const twenty = Array.from({ length: 20 }, (_, i) => `T${i}`).join(",");
    expect((await flow(`symbols=${twenty}`)).res.status).toBe(200);
    await expectError(await api.get(`/v1/flow?symbols=${twenty},T20`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/flow?symbol=SPY&symbols=${twenty}`), 400, "invalid_parameter");
    await expectError(await api.get("/v1/flow?symbols=SPY,sp%20y"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/flow?symbol=spy"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/flow?symbol=SPY&ticker=QQQ"), 400, "invalid_parameter");
  });

  it("takes limit 1-500 (default 50), clamped to 500 and to the plan's 250 rows with X-Limit-Clamped", async () => {
    expect((await flow("minPremium=0&limit=7")).body.prints).toHaveLength(7);
    for (const limit of ["251", "500", "501", "100000"]) {
      const { res, body } = await flow(`minPremium=0&limit=${limit}`);
      expect(res.headers.get("X-Limit-Clamped"), limit).toBe("true");
      expect(body.prints, limit).toHaveLength(250);
    }
    for (const bad of ["0", "-5", "1.5"]) await expectError(await api.get(`/v1/flow?limit=${bad}`), 400, "invalid_parameter");
  });

  it("sorts by premium (default) or by time, newest first", async () => {
    const byTime = await flow("sort=time&minPremium=0&limit=100");
    const times = byTime.body.prints.map((p) => p.executedAt);
    expect(times).toEqual([...times].sort().reverse());
    const byPremium = await flow("sort=premium&minPremium=0&limit=100");
    const premiums = byPremium.body.prints.map((p) => p.premium);
    expect(premiums).toEqual([...premiums].sort((a, b) => b - a));
    expect((await flow("minPremium=0&limit=100")).body).toEqual(byPremium.body);
  });

  it("applies the window defaults word for word", async () => {
    const [oldest, second, third, fourth] = sessions as [string, string, string, string];
    // `to` alone: one session.
    const toOnly = await flow(`to=${third}`);
    expect([toOnly.body.fromDate, toOnly.body.toDate]).toEqual([third, third]);
    expect(toOnly.body.count).toBe((await stored("session_date = $1::date and premium >= 10000", [third])).n);
    // `to` beyond the newest session: the newest session.
    const future = await flow(`toDate=${addDays(etToday(), 10)}`);
    expect([future.body.fromDate, future.body.toDate]).toEqual([newest, newest]);
    // `from` alone, market-wide: the `from` session; with symbols: through the newest session.
    const fromOnly = await flow(`from=${second}`);
    expect([fromOnly.body.fromDate, fromOnly.body.toDate]).toEqual([second, second]);
    const withSymbol = await flow(`fromDate=${oldest}&symbol=SPY&minPremium=0`);
    expect([withSymbol.body.fromDate, withSymbol.body.toDate]).toEqual([oldest, newest]);
    expect(withSymbol.body.count).toBe((await stored("ticker = 'SPY' and session_date >= $1::date", [oldest])).n);
    // Both: three sessions market-wide are fine, four are not.
    const three = await flow(`from=${oldest}&to=${third}&minPremium=0`);
    expect(three.body.count).toBe((await stored("session_date between $1::date and $2::date", [oldest, third])).n);
    await expectError(await api.get(`/v1/flow?from=${oldest}&to=${fourth}`), 400, "out_of_range");
    expect((await flow(`from=${oldest}&to=${fourth}&symbols=SPY,QQQ`)).res.status).toBe(200);
  });

  it("spans a weekend in three sessions market-wide", async () => {
    // The first retained Friday and the two sessions after it.
    const i = sessions.findIndex((d, k) => k > 0 && new Date(`${d}T00:00:00Z`).getUTCDay() === 1);
    if (i < 1 || i + 1 >= sessions.length) return; // no Monday with a Friday before it among the retained sessions
    const from = sessions[i - 1]!;
    const to = sessions[i + 1]!;
    const { body } = await flow(`from=${from}&to=${to}&minPremium=0`);
    expect([body.fromDate, body.toDate]).toEqual([from, to]);
    expect(body.count).toBe(capped((await stored("session_date between $1::date and $2::date", [from, to])).n));
    // A weekend `to` alone is the Friday before it.
    const friday = await flow(`to=${addDays(from, 1)}`);
    expect([friday.body.fromDate, friday.body.toDate]).toEqual([from, from]);
  });
});
