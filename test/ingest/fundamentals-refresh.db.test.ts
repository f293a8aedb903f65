import { spawn } from "node:child_process";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { VendorUnavailable } from "../../ingest/fundamentals/fetch-fundamentals";
import { fundamentalsFromEnv } from "../../ingest/fundamentals/provider-from-env";
import { dueRefresh, followFundamentals, refreshFundamentals } from "../../ingest/fundamentals/refresh-fundamentals";
import { seedMarket } from "../../devkit/generator/seed-market";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { todayInNewYork } from "../../src/domain/calendar";
import { FinnhubFundamentals } from "../../src/vendors/finnhub-fundamentals";
import { startFundamentalsServer, type FundamentalsServer } from "../support/fundamentals-server";
import { ingestDatabase } from "../support/ingest-database";
import { VENDOR_TOKEN } from "../support/vendor-server";
import { testDatabaseUrl } from "../support/test-database";

/** The refresh's day (a Monday) and the market's session before it. */
const TODAY = "2026-11-02";
const SESSION = "2026-10-30";
/** The earnings window a refresh on TODAY replaces: 90 days on. */
const WINDOW_END = "2027-01-31";
const RUN = { today: TODAY, callsPerMinute: 60_000 };

/** The tables a refresh writes, each with its key; restored before each case with the bookkeeping. */
const WRITTEN: Record<string, string> = { underlyings: "symbol", earnings: "symbol, earnings_date", dividends: "symbol, ex_date" };
const RESTORED = [...Object.keys(WRITTEN), "market_versions", "market_state", "fundamentals_refreshes"];

describe("calendars and fundamentals refreshed from Finnhub (a local server replaying its payloads)", () => {
  let db: SqlBackend;
  let vendor: FundamentalsServer;
  let provider: FinnhubFundamentals;

  const digest = async () => {
    const out: Record<string, string> = {};
    for (const [table, key] of Object.entries(WRITTEN))
      out[table] = (await db.typedQuery(`select md5(string_agg(t::text, '|' order by ${key})) as d from ${table} t`)).rows[0]!.d as string;
    return out;
  };
  const versions = async () =>
    Object.fromEntries((await db.typedQuery(`select scope, version from market_versions`)).rows.map((r) => [r.scope, Number(r.version)]));
  const one = async (sql: string, params: unknown[] = []) => (await db.typedQuery(sql, params)).rows[0] as Record<string, unknown>;
  const all = async (sql: string, params: unknown[] = []) => (await db.typedQuery(sql, params)).rows;

  beforeAll(async () => {
    db = await ingestDatabase();
    await seedMarket(db, { size: "demo", seed: 11, sessionDate: SESSION });
    for (const t of RESTORED) await db.typedQuery(`create table snap_${t} as select * from ${t}`);
    vendor = await startFundamentalsServer();
    // Quick retries and a short timeout: the failure modes below are met in seconds.
    provider = new FinnhubFundamentals(
      { baseUrl: vendor.url, token: VENDOR_TOKEN, timeoutMs: 400 },
      { attempts: 3, delayMs: 20, maxWaitMs: 1_500 },
    );
  }, 180_000);
  afterAll(async () => {
    await vendor?.close();
    await db?.close();
  });
  beforeEach(async () => {
    for (const t of RESTORED.filter((t) => t !== "underlyings")) {
      await db.typedQuery(`delete from ${t}`);
      await db.typedQuery(`insert into ${t} select * from snap_${t}`);
    }
    // Other tables refer to the underlyings: their rows are put back in place.
    const columns = (
      await all(`select column_name as c from information_schema.columns where table_name = 'underlyings' and column_name <> 'symbol'`)
    ).map((r) => `"${r.c as string}"`);
    await db.typedQuery(
      `update underlyings u set (${columns.join(", ")}) = (select ${columns.map((c) => `s.${c}`).join(", ")} from snap_underlyings s where s.symbol = u.symbol)`,
    );
    vendor.set("ok");
    vendor.requests.length = 0;
  });

  it("writes the vendor's earnings, dividends and company fields, bumps what changed, and changes nothing when rerun", async () => {
    const before = await versions();
    const pastEarnings = await all(`select * from earnings where earnings_date < $1 or earnings_date > $2 order by symbol, earnings_date`, [
      TODAY,
      WINDOW_END,
    ]);
    const pastDividends = await all(
      `select * from dividends where ex_date < $1 and symbol not in ('AAPL', 'KO', 'SPY') order by symbol, ex_date`,
      [TODAY],
    );

    const report = await refreshFundamentals(db, provider, RUN);

    // The window's calendar is the vendor's: its ten listings up to 2027-01-31 (KO's 02-10 is past it), symbols we do not list included.
    const window = await all(
      `select symbol, earnings_date::text as d, timing, fiscal_quarter as q, eps_estimated as eps, revenue_estimated as rev
       from earnings where earnings_date between $1 and $2 order by earnings_date, symbol`,
      [TODAY, WINDOW_END],
    );
    expect(window.map((r) => `${r.d} ${r.symbol}`)).toEqual([
      "2026-11-05 LIN",
      "2026-11-17 HD",
      "2026-11-18 NVDA",
      "2026-11-19 WMT",
      "2026-12-03 ZUMZ",
      "2026-12-17 MU",
      "2027-01-14 JPM",
      "2027-01-27 MSFT",
      "2027-01-28 AAPL",
      "2027-01-28 TSLA",
    ]);
    expect(window.find((r) => r.symbol === "AAPL")).toEqual({
      symbol: "AAPL",
      d: "2027-01-28",
      timing: "amc",
      q: "Q1 2027",
      eps: 2.67,
      rev: 138250000000,
    });
    expect(window.find((r) => r.symbol === "TSLA")).toMatchObject({ timing: "dmh", q: "Q4 2026", rev: null });
    // An empty `hour` is an unknown timing; missing estimates stay null.
    expect(window.find((r) => r.symbol === "ZUMZ")).toEqual({
      symbol: "ZUMZ",
      d: "2026-12-03",
      timing: "unknown",
      q: "Q3 2026",
      eps: null,
      rev: null,
    });
    // Outside the window nothing moved.
    expect(
      await all(`select * from earnings where earnings_date < $1 or earnings_date > $2 order by symbol, earnings_date`, [
        TODAY,
        WINDOW_END,
      ]),
    ).toEqual(pastEarnings);

    // Companies: Finnhub's name, industry (its sector mapped to ours), market cap in USD (it gives millions), P/E, indicated yield, logo.
    expect(await one(`select * from underlyings where symbol = 'AAPL'`)).toMatchObject({
      name: "Apple Inc",
      sector: "Technology",
      industry: "Technology",
      market_cap: 4036421.5e6,
      pe_ratio: 36.52,
      dividend_yield: 0.0039,
      dividend_frequency: "Quarterly",
      logo_url: "https://static2.finnhub.io/file/publicdatany/finnhubimage/stock_logo/AAPL.png",
    });
    expect(await one(`select name, sector, industry, pe_ratio, dividend_yield from underlyings where symbol = 'KO'`)).toEqual({
      name: "Coca-Cola Co",
      sector: "Consumer Defensive",
      industry: "Beverages",
      pe_ratio: 24.39,
      dividend_yield: 0.0302,
    });
    // A fund has no profile: its frequency and indicated yield come from its dividends (last amount × 4 / spot).
    const spy = await one(
      `select u.dividend_yield, u.dividend_frequency, e.price from underlyings u join equity_quotes e using (symbol) where symbol = 'SPY'`,
    );
    expect(spy.dividend_frequency).toBe("Quarterly");
    expect(spy.dividend_yield).toBeCloseTo((1.8301 * 4) / Number(spy.price), 6);
    // A stock the vendor has no profile of keeps its own; with no dividend in the year it is no payer.
    expect(await one(`select name, sector, dividend_yield, dividend_frequency from underlyings where symbol = 'TSLA'`)).toEqual({
      name: "Tesla, Inc.",
      sector: "Consumer Cyclical",
      dividend_yield: 0,
      dividend_frequency: null,
    });

    // Dividends: the declared ones, and the next one estimated for a regular payer that has not declared it.
    const dividendsOf = (symbol: string) =>
      all(
        `select ex_date::text as ex, pay_date::text as pay, amount, yield_percent as y, frequency as f, is_estimated as est
         from dividends where symbol = $1 and ex_date >= '2025-10-01' order by ex_date`,
        [symbol],
      );
    expect((await dividendsOf("KO")).at(-1)).toEqual({
      ex: "2026-11-27",
      pay: "2026-12-15",
      amount: 0.53,
      y: 3.02,
      f: "Quarterly",
      est: false,
    });
    const koDates = (await dividendsOf("KO")).map((r) => r.ex as string);
    expect(koDates).toEqual(expect.arrayContaining(["2025-11-28", "2026-03-13", "2026-06-12", "2026-09-15", "2026-11-27"]));
    expect(koDates.filter((d) => d >= TODAY)).toEqual(["2026-11-27"]);
    // AAPL's last ex-date 2026-08-10 + 91 days: Monday 2026-11-09, paid as many days after as the last (3).
    expect((await dividendsOf("AAPL")).at(-1)).toEqual({
      ex: "2026-11-09",
      pay: "2026-11-12",
      amount: 0.27,
      y: 0.39,
      f: "Quarterly",
      est: true,
    });
    // SPY's 2026-09-18 + 91: Friday 2026-12-18, paid 42 days later as in September.
    expect((await dividendsOf("SPY")).at(-1)).toMatchObject({ ex: "2026-12-18", pay: "2027-01-29", amount: 1.8301, est: true });
    // Upcoming rows of symbols the vendor lists without dividends are gone (an index's, never asked, stay); past ones are never removed.
    expect(await all(`select distinct symbol from dividends where ex_date >= $1 and symbol not in ('AAPL', 'KO', 'SPY')`, [TODAY])).toEqual(
      [{ symbol: "SPX" }],
    );
    expect(
      await all(`select * from dividends where ex_date < $1 and symbol not in ('AAPL', 'KO', 'SPY') order by symbol, ex_date`, [TODAY]),
    ).toEqual(pastDividends);

    // The calendars' scope and each changed underlying's moved; the day is recorded with its report.
    const after = await versions();
    for (const scope of ["*", "AAPL", "KO", "SPY", "NVDA", "TSLA"]) expect(after[scope], scope).toBeGreaterThan(before[scope] ?? 0);
    expect(report).toMatchObject({ vendor: "finnhub", day: TODAY, earnings: { rows: 10 }, failed: { count: 0 }, unmappedIndustries: [] });
    expect((await one(`select report from fundamentals_refreshes where day = $1`, [TODAY])).report).toEqual(report);
    // The token travels in a header only.
    expect(vendor.requests.length).toBeGreaterThan(0);
    expect(vendor.requests.filter((r) => /token/i.test(r))).toEqual([]);

    // The same answers again: nothing written, nothing invalidated.
    const written = await digest();
    const rerun = await refreshFundamentals(db, provider, RUN);
    expect(rerun).toMatchObject({ earnings: { changed: 0 }, dividends: { changed: 0 }, companies: { changed: 0 }, scopesBumped: 0 });
    expect(await digest()).toEqual(written);
    expect(await versions()).toEqual(after);
  }, 60_000);

  it("keeps everything when the vendor is down, stops asking after ten failures in a row, logs it, and is still due", async () => {
    vendor.set("down");
    const stored = await digest();
    const before = await versions();
    await expect(refreshFundamentals(db, provider, RUN)).rejects.toThrow(/10 calls failed in a row, the last HTTP 500/);
    expect(vendor.requests.length).toBeLessThanOrEqual(10 * 3 + 3 * 4);
    expect(await digest()).toEqual(stored);
    expect(await versions()).toEqual(before);

    const logged: Record<string, unknown>[] = [];
    const stop = new AbortController();
    const at = new Date("2026-11-02T12:00:00Z");
    await followFundamentals(db, provider, {
      log: (e) => (logged.push(e), stop.abort()),
      signal: stop.signal,
      callsPerMinute: 60_000,
      now: () => at,
    });
    expect(logged).toEqual([
      expect.objectContaining({ event: "fundamentals_refresh_failed", vendor: "finnhub", kept: expect.stringMatching(/nothing written/) }),
    ]);
    expect(await digest()).toEqual(stored);
    expect(await dueRefresh(db, at)).toBe(TODAY);
  }, 60_000);

  it("stops at the first refusal of the key and writes nothing", async () => {
    vendor.set("denied");
    const stored = await digest();
    const failure = await refreshFundamentals(db, provider, RUN).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(VendorUnavailable);
    expect((failure as Error).message).toBe("finnhub refused the key (HTTP 401)");
    expect(vendor.requests).toHaveLength(1);
    expect(await digest()).toEqual(stored);
  });

  it("refreshes what the key's plan covers when one endpoint is refused (403), keeping the rest", async () => {
    vendor.set("no-dividends-plan");
    const dividends = await all(`select * from dividends order by symbol, ex_date`);
    const report = await refreshFundamentals(db, provider, RUN);
    const asked = Number((await one(`select count(*)::int as n from underlyings where asset_type <> 'index'`)).n);
    expect(report.failed.count).toBe(asked);
    expect(await all(`select * from dividends order by symbol, ex_date`)).toEqual(dividends);
    expect(await one(`select name, pe_ratio from underlyings where symbol = 'AAPL'`)).toEqual({ name: "Apple Inc", pe_ratio: 36.52 });
    expect(report.earnings).toEqual({ rows: 10, changed: expect.any(Number) });
  }, 60_000);

  it.each(["slow", "badjson", "weird"] as const)(
    "keeps a symbol's values when the vendor answers it %s, and refreshes the others",
    async (mode) => {
      vendor.set(mode, ["KO"]);
      const ko = async () => ({
        company: await one(`select * from underlyings where symbol = 'KO'`),
        dividends: await all(`select * from dividends where symbol = 'KO' order by ex_date`),
      });
      const stored = await ko();
      const report = await refreshFundamentals(db, provider, RUN);
      expect(await ko()).toEqual(stored);
      expect(report.failed).toEqual({ count: 1, first: ["KO"] });
      expect(await one(`select name from underlyings where symbol = 'AAPL'`)).toEqual({ name: "Apple Inc" });
    },
    60_000,
  );

  it("keeps the stored earnings when the vendor lists none in the window, and refreshes the rest", async () => {
    vendor.set("empty-calendar");
    const earnings = await all(`select * from earnings order by symbol, earnings_date`);
    const report = await refreshFundamentals(db, provider, RUN);
    expect(report.earnings).toEqual({
      kept: expect.stringMatching(/^the vendor listed no earnings from 2026-11-02 to 2027-01-31; the \d+ stored kept$/),
    });
    expect(await all(`select * from earnings order by symbol, earnings_date`)).toEqual(earnings);
    expect(await one(`select name from underlyings where symbol = 'AAPL'`)).toEqual({ name: "Apple Inc" });
  }, 60_000);

  it("waits out a 429's Retry-After and carries on", async () => {
    vendor.set("throttled", ["AAPL"]);
    const started = Date.now();
    const report = await refreshFundamentals(db, provider, RUN);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(report.failed.count).toBe(0);
    expect(vendor.requests.filter((r) => r.includes("symbol=AAPL"))).toHaveLength(6);
    expect(await one(`select pe_ratio from underlyings where symbol = 'AAPL'`)).toEqual({ pe_ratio: 36.52 });
  }, 60_000);

  it("is due once a day from 06:00 ET", async () => {
    // 06:00 EST is 11:00 UTC in November.
    expect(await dueRefresh(db, new Date("2026-11-02T10:59:59Z"))).toBeNull();
    expect(await dueRefresh(db, new Date("2026-11-02T11:00:00Z"))).toBe(TODAY);
    await refreshFundamentals(db, provider, RUN);
    expect(await dueRefresh(db, new Date("2026-11-02T20:00:00Z"))).toBeNull();
    expect(await dueRefresh(db, new Date("2026-11-03T11:00:00Z"))).toBe("2026-11-03");
  }, 60_000);

  it.each([
    ["no token", {}, /^FINNHUB_TOKEN is not set\./],
    [
      "a pace that is no number",
      { FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_CALLS_PER_MINUTE: "fast" },
      /^FINNHUB_CALLS_PER_MINUTE must be a positive number\./,
    ],
    ["a vendor URL that is none", { FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_URL: "finnhub" }, /^FINNHUB_URL must be a URL\./],
    [
      "a vendor URL over plain http to another machine",
      { FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_URL: "http://finnhub.io" },
      /^FINNHUB_URL must be an https URL \(plain http only on loopback addresses\)\./,
    ],
  ])("`npm run fundamentals` with %s stops with a usage error before it opens a database", async (_, env, message) => {
    const run = await fundamentalsProcess({ DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", ...env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it.skipIf(!testDatabaseUrl())(
    "`npm run fundamentals` refreshes DATABASE_URL now, and exits 1 without a trace of the key when it is refused",
    async () => {
      const url = new URL(testDatabaseUrl()!);
      url.pathname = `/${(await one("select current_database() as name")).name as string}`;
      const env = { DATABASE_URL: url.toString(), FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_URL: vendor.url, FINNHUB_CALLS_PER_MINUTE: "60000" };
      const run = await fundamentalsProcess(env);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(run.stdout)).toMatchObject({
        event: "fundamentals_refreshed",
        vendor: "finnhub",
        day: todayInNewYork(),
        failed: { count: 0 },
      });
      expect(await one(`select name, pe_ratio from underlyings where symbol = 'AAPL'`)).toEqual({ name: "Apple Inc", pe_ratio: 36.52 });

      vendor.set("denied");
      const refused = await fundamentalsProcess(env);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr)).toEqual({ event: "fundamentals_refresh_failed", error: "finnhub refused the key (HTTP 401)" });
      expect(refused.stdout + refused.stderr).not.toContain(VENDOR_TOKEN);
    },
    60_000,
  );
});

describe("the vendor's base URL (FINNHUB_URL)", () => {
  it("is https, or plain http only to a loopback address: the token travels with every call", () => {
    for (const url of ["http://finnhub.io", "http://10.0.0.5:8080", "http://localhost@finnhub.io", "ftp://127.0.0.1"]) {
      expect(fundamentalsFromEnv({ FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_URL: url }), url).toEqual({
        error: "FINNHUB_URL must be an https URL (plain http only on loopback addresses).",
      });
    }
    for (const url of [undefined, "https://finnhub.io", "http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"]) {
      expect(fundamentalsFromEnv({ FINNHUB_TOKEN: VENDOR_TOKEN, FINNHUB_URL: url }), url).toHaveProperty("provider");
    }
  });
});

/** `npm run fundamentals` with `env` over the test's own: its exit code and output. */
async function fundamentalsProcess(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { FINNHUB_TOKEN: _t, FINNHUB_URL: _u, FINNHUB_CALLS_PER_MINUTE: _c, ...inherited } = process.env;
  const child = spawn(process.execPath, ["--import", "tsx", "ingest/cli/fundamentals.ts"], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout: stdout.trim(), stderr: stderr.trim() };
}
