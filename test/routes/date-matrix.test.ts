import { neon } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addDays,
  daysBetween,
  isSession,
  previousSessions,
  sessionCloseAt,
  sessionOnOrAfter,
  sessionOnOrBefore,
  todayInNewYork,
} from "../../src/domain/calendar";
import { marketClock } from "../../src/domain/market-clock";
import { useNeonEndpoint } from "../../src/db/client";
import { earningsRoute } from "../../src/routes/calendars/earnings";
import { flowRoute } from "../../src/routes/flow/flow";
import { netFlowRoute } from "../../src/routes/flow/net-flow";
import { gexHeatmapRoute } from "../../src/routes/gamma-exposure/heatmap";
import { chainRoute } from "../../src/routes/quotes-and-options/chain";
import { expirationsRoute } from "../../src/routes/quotes-and-options/expirations";
import { screenRoute } from "../../src/routes/screener/screen";
import { bearer, newAccount } from "../support/accounts";
import { contractBody } from "../support/contract";
import { MATRIX_MARKETS, matrixCacheBinding } from "../support/date-matrix";
import { callWith, expectError, testEnv } from "../support/worker";

/**
 * The date-sensitive rules, asked of markets seeded for other sessions at instants around them: a
 * Friday and the Saturday after, a Monday and the night after it, the day before a holiday and the
 * holiday, an early close before and after 13:00 ET and the Saturday after it. Every expectation
 * is derived from the calendar and the market's own rows, never from the machine's date.
 */

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount()).keys[0]!.key);
});

const urls = testEnv.TEST_MATRIX_URLS.split(",");
/** Same-day GEX windows found open with contracts, across the matrix: the rule must be exercised, not only vacuously true. */
const openSameDayWindows: string[] = [];
afterAll(() => expect(openSameDayWindows.length).toBeGreaterThan(0));
const cases = MATRIX_MARKETS.flatMap((market, i) => market.clocks.map((clock) => ({ ...clock, market, i })));

describe.each(cases)("at $what (market of $market.session)", ({ at, market, i }) => {
  const overrides = {
    MARKET_DATABASE_URL: urls[i]!,
    MARKET_CLOCK: at,
    MARKET_CACHE: (testEnv as unknown as Record<string, KVNamespace>)[matrixCacheBinding(i)]!,
  };
  const get = (path: string) => callWith(overrides, path, auth);
  const sql = (query: string, params: unknown[] = []) => {
    useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
    return neon(urls[i]!).query(query, params) as Promise<Record<string, unknown>[]>;
  };
  const now = new Date(at);
  const today = todayInNewYork(now);
  const newest = market.session;
  /** The earliest `from` served: 7 calendar days before today's ET date, whatever day of the week that is. */
  const earliest = addDays(today, -7);
  const storedPrints = async (from: string, to: string, extra = "", params: unknown[] = []) => {
    const [row] = await sql(
      `select count(*)::int as n from flow_prints where print_class <> 'canceled' and session_date between $1::date and $2::date ${extra}`,
      [from, to, ...params],
    );
    return Math.min(row!.n as number, 10_000);
  };

  it("holds the market of the last session whose snapshot was taken by then", async () => {
    expect(marketClock(newest).asOf.getTime()).toBeLessThanOrEqual(now.getTime());
    const next = addDays(newest, 1);
    const later = [0, 1, 2, 3, 4].map((d) => addDays(next, d)).find(isSession)!;
    expect(marketClock(later).asOf.getTime()).toBeGreaterThan(now.getTime());
    const [state] = await sql("select session_date::text as session from market_state");
    expect(state!.session).toBe(newest);
  });

  it("serves flow's default window as the newest session, and a lone `to` as the session on or before it", async () => {
    const flow = await contractBody(flowRoute, await get("/v1/flow"));
    expect([flow.fromDate, flow.toDate]).toEqual([newest, newest]);
    expect(flow.count).toBe(await storedPrints(newest, newest, "and premium >= 10000"));
    const toToday = await contractBody(flowRoute, await get(`/v1/flow?to=${today}&minPremium=0`));
    const expected = sessionOnOrBefore(today) < newest ? sessionOnOrBefore(today) : newest;
    expect([toToday.fromDate, toToday.toDate]).toEqual([expected, expected]);
  });

  it("counts a market-wide window in trading sessions (weekends and holidays do not count)", async () => {
    const sessions = previousSessions(sessionOnOrBefore(today), 4);
    const three = sessions.slice(-3);
    if (three[2]! <= newest) {
      const body = await contractBody(flowRoute, await get(`/v1/flow?from=${three[0]}&to=${three[2]}&minPremium=0&limit=1`));
      expect([body.fromDate, body.toDate]).toEqual([three[0], three[2]]);
      expect(body.count).toBe(await storedPrints(three[0]!, three[2]!));
    }
    await expectError(await get(`/v1/flow?from=${sessions[0]}&to=${sessions[3]}`), 400, "out_of_range");
    await expectError(await get(`/v1/flow?symbol=SPY&from=${addDays(newest, 1)}`), 400, "out_of_range");
  });

  it("keeps 7 calendar days: `from` of today − 7 is served and today − 8 is out of range, on flow and net flow", async () => {
    const before = addDays(today, -8);
    for (const path of ["/v1/flow?symbol=SPY", "/v1/flow?minPremium=0", "/v1/flow/net?symbol=SPY"]) {
      const body = await expectError(await get(`${path}&from=${before}`), 400, "out_of_range");
      expect(body.message, path).toMatch(/7-day retention/);
    }
    // One symbol spans the whole retention: from today − 7 (a weekend or holiday starts at the next session) to the
    // newest session.
    const first = sessionOnOrAfter(earliest);
    expect(first <= newest).toBe(true);
    const whole = await contractBody(flowRoute, await get(`/v1/flow?symbol=SPY&from=${earliest}&minPremium=0&limit=1`));
    expect([whole.fromDate, whole.toDate]).toEqual([earliest, newest]);
    expect(whole.count).toBeGreaterThan(0);
    expect(whole.count).toBe(await storedPrints(earliest, newest, "and ticker = 'SPY'"));
    // Market-wide, `from` alone is its session.
    const marketWide = await contractBody(flowRoute, await get(`/v1/flow?from=${earliest}&minPremium=0&limit=1`));
    expect([marketWide.fromDate, marketWide.toDate]).toEqual([earliest, first]);
    expect(marketWide.count).toBe(await storedPrints(earliest, first));
    // Net flow: `to` defaults to the `from` session.
    const net = await contractBody(netFlowRoute, await get(`/v1/flow/net?symbol=SPY&from=${earliest}&minPremium=0`));
    expect(net.retentionDays).toBe(7);
    expect(net.points.length).toBeGreaterThan(0);
    for (const p of net.points) expect(todayInNewYork(new Date(p.t))).toBe(first);
  });

  it("draws net flow over the newest session by default", async () => {
    const net = await contractBody(netFlowRoute, await get("/v1/flow/net?symbol=SPY&minPremium=0"));
    expect(net.points.length).toBeGreaterThan(0);
    for (const p of net.points) expect(todayInNewYork(new Date(p.t))).toBe(newest);
  });

  it("counts days to expiration from today's date in New York", async () => {
    const schedule = await contractBody(expirationsRoute, await get("/v1/expirations/SPY"));
    expect(schedule.expirations.length).toBeGreaterThan(0);
    for (const e of schedule.expirations) {
      expect(e.dte).toBe(daysBetween(today, e.expiration));
      expect(e.dte).toBeGreaterThanOrEqual(0);
    }
    const chain = await contractBody(chainRoute, await get("/v1/chain/SPY?limit=250"));
    expect(chain.contracts.length).toBeGreaterThan(0);
    for (const c of chain.contracts) {
      expect(c.dte).toBe(daysBetween(today, c.expiration));
      expect(c.dte >= 0 && c.dte <= 45).toBe(true);
    }
  });

  it("puts in the same-day window only contracts expiring today that have not settled yet", async () => {
    const map = await contractBody(gexHeatmapRoute, await get("/v1/gex/SPY/heatmap?zeroDte=true&strikeMin=0"));
    const [row] = await sql(
      `select count(*)::int as n from option_quotes where underlying = 'SPY' and expiration = $1::date and open_interest > 0 and iv > 0`,
      [today],
    );
    const open = isSession(today) && now.getTime() < sessionCloseAt(today).getTime();
    if (!open || row!.n === 0) expect(map.expirations).toEqual([]);
    else {
      expect(map.expirations).toEqual([today]);
      openSameDayWindows.push(at);
    }
  });

  it("starts the calendars' default window today", async () => {
    const earnings = await contractBody(earningsRoute, await get("/v1/earnings"));
    expect([earnings.from, earnings.to]).toEqual([today, addDays(today, 29)]);
  });

  it("reads 'traded today' as today's date in New York", async () => {
    const res = await callWith(overrides, "/v1/contracts/screen", {
      ...auth,
      method: "POST",
      headers: { ...(auth.headers as Record<string, string>), "Content-Type": "application/json" },
      body: JSON.stringify({ filters: [{ field: "lastTradeDate", operation: "lastTradeToday" }] }),
    });
    const screen = await contractBody(screenRoute, res);
    const [row] = await sql(
      "select count(*)::int as n from (select 1 from screener_contracts where (last_trade_date at time zone 'America/New_York')::date >= $1::date limit 1000) as c",
      [today],
    );
    expect(screen.count).toBe(row!.n);
  });
});
