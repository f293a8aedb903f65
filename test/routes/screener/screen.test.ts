import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenRoute, type ScreenerResponse } from "../../../src/routes/screener/screen";
import { SCREENER_FIELDS, ACCEPTED_FIELD_NAMES } from "../../../src/screener/fields";
import { ACCEPTED_OPERATIONS } from "../../../src/screener/operations";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { addDays, etToday, marketSql } from "../../support/market-db";
import { TEST_CLOCK } from "../../support/test-clock";
import { countedAlias } from "../../support/counted-database";
import { call, callWith, expectError, testEnv, type TestBindings } from "../../support/worker";

/** The spec's "Accepted filter and sort fields (98)", copied from spec/options-data-service.md. */
const SPEC_FIELDS =
  "annualizedReturn, askPrice, bidAskSpread, bidAskSpreadAbs, bidAskSpreadDollar, bidAskSpreadPct, bidAskSpreadPercent, bidPrice, call, consensus, contractScore, cushion, daysToExpiration, debtToEquityScore, delta, discountedCashFlowScore, dividendFrequency, dividendIsEstimated, dividendYield, dividendamount, dividenddate, dividenddays, dividendpaymentdate, dte, earnings, earningsDate, exdividenddate, expiration, expirationDays, expiration_days, fiftyDayAverage, fiftyTwoWeekHigh, fiftyTwoWeekLow, gamma, highestStockIV, impliedVolatility, industry, iv, ivr, lastPrice, lastTradeDate, lastUpdatedDate, liquidity, lowestStockIV, markOneDayAgo, marketCap, moneyness, nextDividendAmount, nextDividendDate, nextDividendDays, nextDividendIsEstimated, nextDividendPaymentDate, openInterest, openInterestHistorySamples30d, openInterestStdDevDiff, openInterestStdDevDiff30d, openInterestZScore, openInterestZScore30d, overallScore, peRatio, premium, premiumChange1dPct, premiumIncreasing, premiumIncreasing30d, priceToBookScore, priceToEarningsScore, probability, put, rating, returnOnAssetsScore, returnOnEquityScore, rsi, sector, spread, spreadAbs, spreadPct, stockIV, stockPrice, stockType, strike, strikeFilter, symbol, symbolType, symbols, theta, thirtyDayAverageIV, thirtyDayAveragePremium, thirtyDayAverageVolume, twoHundredDayAverage, type, vega, volume, volumeHistorySamples30d, volumeStdDevDiff, volumeStdDevDiff30d, volumeZScore, volumeZScore30d, yieldPercent".split(
    ", ",
  );

/**
 * The column each accepted name must filter on, written here independently of the field table
 * (a days field compares the date column against today + n).
 */
const COLUMN: Record<string, string> = {
  annualizedReturn: "annualized_return",
  askPrice: "ask_price",
  bidAskSpread: "spread_pct",
  bidAskSpreadAbs: "spread_abs",
  bidAskSpreadDollar: "spread_abs",
  bidAskSpreadPct: "spread_pct",
  bidAskSpreadPercent: "spread_pct",
  bidPrice: "bid_price",
  call: "(type = 'call')",
  consensus: "consensus",
  contractScore: "contract_score",
  cushion: "cushion",
  daysToExpiration: "expiration",
  debtToEquityScore: "de_score",
  delta: "delta",
  discountedCashFlowScore: "dcf_score",
  dividendFrequency: "dividend_frequency",
  dividendIsEstimated: "next_dividend_is_estimated",
  dividendYield: "dividend_yield",
  dividendamount: "next_dividend_amount",
  dividenddate: "next_dividend_date",
  dividenddays: "next_dividend_date",
  dividendpaymentdate: "next_dividend_payment_date",
  dte: "expiration",
  earnings: "earnings_before_expiration",
  earningsDate: "earnings_date",
  exdividenddate: "next_dividend_date",
  expiration: "expiration",
  expirationDays: "expiration",
  expiration_days: "expiration",
  fiftyDayAverage: "fifty_day_average",
  fiftyTwoWeekHigh: "fifty_two_week_high",
  fiftyTwoWeekLow: "fifty_two_week_low",
  gamma: "gamma",
  highestStockIV: "highest_stock_iv",
  impliedVolatility: "implied_volatility",
  industry: "industry",
  iv: "implied_volatility",
  ivr: "ivr",
  lastPrice: "last_price",
  lastTradeDate: "last_trade_date",
  lastUpdatedDate: "last_updated_date",
  liquidity: "liquidity",
  lowestStockIV: "lowest_stock_iv",
  markOneDayAgo: "yesterday_mark",
  marketCap: "market_cap",
  moneyness: "moneyness",
  nextDividendAmount: "next_dividend_amount",
  nextDividendDate: "next_dividend_date",
  nextDividendDays: "next_dividend_date",
  nextDividendIsEstimated: "next_dividend_is_estimated",
  nextDividendPaymentDate: "next_dividend_payment_date",
  openInterest: "open_interest",
  openInterestHistorySamples30d: "oi_samples_30d",
  openInterestStdDevDiff: "oi_diff_30d",
  openInterestStdDevDiff30d: "oi_diff_30d",
  openInterestZScore: "oi_z_30d",
  openInterestZScore30d: "oi_z_30d",
  overallScore: "overall_score",
  peRatio: "pe_ratio",
  premium: "premium",
  premiumChange1dPct: "premium_change_1d_pct",
  premiumIncreasing: "premium_increasing",
  premiumIncreasing30d: "premium_increasing_30d",
  priceToBookScore: "pb_score",
  priceToEarningsScore: "pe_score",
  probability: "probability",
  put: "(type = 'put')",
  rating: "rating",
  returnOnAssetsScore: "roa_score",
  returnOnEquityScore: "roe_score",
  rsi: "rsi",
  sector: "sector",
  spread: "spread_pct",
  spreadAbs: "spread_abs",
  spreadPct: "spread_pct",
  stockIV: "stock_iv",
  stockPrice: "stock_price",
  stockType: "asset_type",
  strike: "strike",
  strikeFilter: "strike_rank",
  symbol: "symbol",
  symbolType: "asset_type",
  symbols: "symbol",
  theta: "theta",
  thirtyDayAverageIV: "avg_iv_30d",
  thirtyDayAveragePremium: "avg_premium_30d",
  thirtyDayAverageVolume: "avg_volume_30d",
  twoHundredDayAverage: "two_hundred_day_average",
  type: "type",
  vega: "vega",
  volume: "volume",
  volumeHistorySamples30d: "volume_samples_30d",
  volumeStdDevDiff: "volume_diff_30d",
  volumeStdDevDiff30d: "volume_diff_30d",
  volumeZScore: "volume_z_30d",
  volumeZScore30d: "volume_z_30d",
  yieldPercent: "yield_percent",
};
const DAYS_FIELDS = new Set(["dte", "daysToExpiration", "expirationDays", "expiration_days", "dividenddays", "nextDividendDays"]);

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

const post = (body: unknown, query = "", init: RequestInit = auth) =>
  call(`/v1/contracts/screen${query}`, {
    ...init,
    method: "POST",
    headers: { ...(init.headers as Record<string, string>), "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const screen = async (body: unknown, query = ""): Promise<ScreenerResponse> => contractBody(screenRoute, await post(body, query));

/** Rows of the screener table matching a SQL condition (independent of the compiler), capped like the API's count. */
async function expectedCount(condition: string, params: unknown[] = []): Promise<number> {
  const [row] = await marketSql().query(
    `select count(*)::int as n from (select 1 from screener_contracts where ${condition} limit 1000) as capped`,
    params,
  );
  return row!.n as number;
}

async function keysWhere(condition: string, params: unknown[] = []): Promise<Set<string>> {
  const rows = await marketSql().query(`select option_key from screener_contracts where ${condition}`, params);
  return new Set(rows.map((r) => r.option_key as string));
}

describe("the field table", () => {
  it("accepts exactly the spec's 98 names", () => {
    expect(SPEC_FIELDS).toHaveLength(98);
    expect([...ACCEPTED_FIELD_NAMES].sort()).toEqual([...SPEC_FIELDS].sort());
    expect(Object.keys(COLUMN).sort()).toEqual([...SPEC_FIELDS].sort());
  });

  it("accepts the spec's 20 operations", () => {
    expect(ACCEPTED_OPERATIONS).toHaveLength(20);
  });
});

describe("each of the 98 field names filters on its column", () => {
  for (const name of SPEC_FIELDS) {
    it(name, async () => {
      const field = SCREENER_FIELDS.find((f) => f.name === name || f.aliases.includes(name))!;
      const column = COLUMN[name]!;
      let rule: { field: string; operation: string; value: unknown };
      let condition: string;
      let params: unknown[];
      if (DAYS_FIELDS.has(name)) {
        const [r] = await marketSql().query(
          `select percentile_disc(0.5) within group (order by ${column} - $1::date) as v from screener_contracts where ${column} is not null`,
          [etToday()],
        );
        rule = { field: name, operation: "gte", value: r!.v };
        condition = `${column} - $1::date >= $2`;
        params = [etToday(), r!.v];
      } else if (field.type === "boolean") {
        rule = { field: name, operation: "eq", value: true };
        condition = `${column} = true`;
        params = [];
      } else if (field.type === "text" || field.type === "set") {
        const [r] = await marketSql().query(
          `select ${column} as v from screener_contracts where ${column} is not null group by 1 order by count(*) asc, 1 limit 1`,
        );
        rule = { field: name, operation: "eq", value: r!.v };
        condition = `${column} = $1`;
        params = [r!.v];
      } else {
        const [r] = await marketSql().query(
          `select percentile_disc(0.5) within group (order by ${column}) as v from screener_contracts where ${column} is not null`,
        );
        const v = field.type === "timestamp" ? new Date(r!.v as string).toISOString() : r!.v;
        rule = { field: name, operation: "gte", value: v };
        condition = `${column} >= $1${field.type === "timestamp" ? "::timestamptz" : field.type === "date" ? "::date" : ""}`;
        params = [v];
      }
      const body = await screen({ pageSize: 100, filters: [rule] });
      const expected = await expectedCount(condition, params);
      expect(expected, `${name}: the test's threshold selects something`).toBeGreaterThan(0);
      expect(body.count).toBe(expected);
      const matching = await keysWhere(condition, params);
      for (const row of body.results) expect(matching.has(row.optionKey), `${name}: ${row.optionKey}`).toBe(true);
    });
  }
});

describe("operations", () => {
  it("the 11 comparison spellings mean gt, gte, lt, lte and eq", async () => {
    const [r] = await marketSql().query("select percentile_disc(0.5) within group (order by strike) as k from screener_contracts");
    const k = r!.k as number;
    const spellings: [string, string][] = [
      ["gt", ">"],
      [">", ">"],
      ["gte", ">="],
      [">=", ">="],
      ["lt", "<"],
      ["<", "<"],
      ["lte", "<="],
      ["<=", "<="],
      ["eq", "="],
      ["=", "="],
      ["==", "="],
    ];
    for (const [operation, op] of spellings) {
      const body = await screen({
        filters: [
          { field: "strike", operation, value: k },
          { field: "symbol", operation: "eq", value: "NVDA" },
        ],
      });
      expect(body.count, operation).toBe(await expectedCount(`strike ${op} $1 and symbol = 'NVDA'`, [k]));
    }
  });

  it("date thresholds compare dates, and numeric strings are numbers", async () => {
    const from = addDays(etToday(), 30);
    const body = await screen({
      filters: [
        { field: "expiration", operation: "<", value: from },
        { field: "strike", operation: ">=", value: "100" },
      ],
    });
    expect(body.count).toBe(await expectedCount("expiration < $1::date and strike >= 100", [from]));
  });

  it("like is a case-insensitive substring whose wildcards match themselves", async () => {
    const tech = await screen({ filters: [{ field: "sector", operation: "like", value: "TECH" }] });
    expect(tech.count).toBe(await expectedCount("sector ilike '%tech%'"));
    expect(tech.count).toBeGreaterThan(0);
    for (const value of ["%", "_", "\\", "tech%", "'; drop table screener_contracts; --"]) {
      const body = await screen({ filters: [{ field: "sector", operation: "like", value }] });
      expect(body.count, value).toBe(0);
    }
    expect(await expectedCount("true")).toBeGreaterThan(0);
  });

  it("in and exclude take an array or a comma-separated list; exclude keeps rows without a value", async () => {
    const asArray = await screen({ filters: [{ field: "symbols", operation: "in", value: ["nvda", "AAPL"] }] });
    const asList = await screen({ filters: [{ field: "symbol", operation: "in", value: "NVDA, aapl" }] });
    const expected = await expectedCount("symbol in ('NVDA', 'AAPL')");
    expect(asArray.count).toBe(expected);
    expect(asList.count).toBe(expected);
    const excluded = await screen({ filters: [{ field: "sector", operation: "exclude", value: "Technology" }] });
    expect(excluded.count).toBe(await expectedCount("sector is null or lower(sector) <> 'technology'"));
    const strikes = await screen({
      filters: [
        { field: "strike", operation: "in", value: [100, 105] },
        { field: "symbol", operation: "eq", value: "IWM" },
      ],
    });
    expect(strikes.count).toBe(await expectedCount("strike in (100, 105) and symbol = 'IWM'"));
  });

  it("excludeEarnings, contract mode: drops expirations within 7 days of an upcoming earnings date, keeps contracts spanning one", async () => {
    const body = await screen({ filters: [{ field: "earnings", operation: "excludeEarnings" }] });
    const independent =
      "not exists (select 1 from earnings e, market_state m where e.symbol = screener_contracts.symbol and e.earnings_date >= m.session_date and abs(e.earnings_date - screener_contracts.expiration) <= 7)";
    expect(body.count).toBe(await expectedCount(independent));
    expect(await expectedCount(`not (${independent})`), "some contracts are near earnings").toBeGreaterThan(0);
    const spanning = await screen({
      pageSize: 100,
      filters: [
        { field: "earnings", operation: "excludeEarnings" },
        { field: "earnings", operation: "eq", value: true },
      ],
    });
    expect(spanning.count, "a contract whose life spans earnings but expires far from it stays").toBeGreaterThan(0);
  });

  it("excludeEarnings, symbol mode: drops every contract of an underlying reporting within the next 7 days", async () => {
    const sql = marketSql();
    const today = etToday();
    await sql.query("update screener_contracts set earnings_date = $1::date where symbol = 'MSFT'", [addDays(today, 3)]);
    try {
      for (const value of ["symbol", "ticker"]) {
        const body = await screen({
          filters: [
            { field: "earnings", operation: "excludeEarnings", value },
            { field: "symbols", operation: "in", value: "MSFT,GLD" },
          ],
        });
        expect(body.count, value).toBe(
          await expectedCount("symbol = 'GLD' and (earnings_date is null or earnings_date not between $1::date and $1::date + 7)", [today]),
        );
        expect(body.results.every((r) => r.symbol !== "MSFT")).toBe(true);
      }
    } finally {
      await sql.query(
        "update screener_contracts s set earnings_date = (select min(e.earnings_date) from earnings e, market_state m where e.symbol = s.symbol and e.earnings_date >= m.session_date) where symbol = 'MSFT'",
      );
    }
  });

  it("cleanupLiquidity, lastTradeToday, lastTradeRecent and strikeFilter", async () => {
    const clean = await screen({ filters: [{ field: "liquidity", operation: "cleanupLiquidity", value: 10 }] });
    expect(clean.count).toBe(await expectedCount("bid_price > 0 and ask_price >= bid_price and open_interest > 0 and spread_pct <= 10"));
    const byDefault = await screen({ filters: [{ field: "liquidity", operation: "cleanupLiquidity" }] });
    expect(byDefault.count).toBe(
      await expectedCount("bid_price > 0 and ask_price >= bid_price and open_interest > 0 and spread_pct <= 25"),
    );
    const today = await screen({ filters: [{ field: "lastTradeDate", operation: "lastTradeToday" }] });
    expect(today.count).toBe(await expectedCount("(last_trade_date at time zone 'America/New_York')::date >= $1::date", [etToday()]));
    const recent = await screen({ filters: [{ field: "lastTradeDate", operation: "lastTradeRecent", value: 5 }] });
    expect(recent.count).toBe(await expectedCount("last_trade_date >= $1::timestamptz - interval '5 days'", [TEST_CLOCK]));
    const nearest = await screen({
      pageSize: 100,
      filters: [
        { field: "strikeFilter", operation: "strikeFilter", value: 2 },
        { field: "symbol", operation: "eq", value: "NVDA" },
      ],
    });
    expect(nearest.count).toBe(await expectedCount("strike_rank <= 2 and symbol = 'NVDA'"));
    const [spot] = await marketSql().query("select stock_price from screener_contracts where symbol = 'NVDA' limit 1");
    for (const row of nearest.results) {
      const closer = await expectedCount("symbol = 'NVDA' and expiration = $1::date and type = $2 and abs(strike - $3) < abs($4 - $3)", [
        row.expiration.slice(0, 10),
        row.type,
        spot!.stock_price,
        row.strike,
      ]);
      expect(closer, row.optionKey).toBeLessThan(2);
    }
  });
});

describe("sorting", () => {
  const order = async (filters: unknown[]) =>
    (await screen({ pageSize: 100, filters: [{ field: "symbol", operation: "in", value: "NVDA,AAPL" }, ...filters] })).results;

  it("asc, ascending, empty and omitted ascend; desc and descending descend; ties end on the option key", async () => {
    const asc = await order([{ field: "strike", operation: "sort", value: "asc" }]);
    for (const value of ["ascending", "", undefined]) expect(await order([{ field: "strike", operation: "sort", value }])).toEqual(asc);
    const desc = await order([{ field: "strike", operation: "sort", value: "desc" }]);
    expect(await order([{ field: "strike", operation: "sort", value: "DESCENDING" }])).toEqual(desc);
    for (let i = 1; i < asc.length; i++) {
      const [a, b] = [asc[i - 1]!, asc[i]!];
      expect(a.strike < b.strike || (a.strike === b.strike && a.optionKey < b.optionKey)).toBe(true);
      const [c, d] = [desc[i - 1]!, desc[i]!];
      expect(c.strike > d.strike || (c.strike === d.strike && c.optionKey < d.optionKey)).toBe(true);
    }
  });

  it("several sort rules apply in the order given", async () => {
    const rows = await order([
      { field: "type", operation: "sort", value: "desc" },
      { field: "expiration", operation: "sort", value: "asc" },
      { field: "openInterest", operation: "sort", value: "desc" },
    ]);
    const key = (r: (typeof rows)[number]) => [r.type === "put" ? 0 : 1, r.expiration, -r.openInterest, r.optionKey] as const;
    const sorted = [...rows].sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return 0;
    });
    expect(rows.map((r) => r.optionKey)).toEqual(sorted.map((r) => r.optionKey));
  });

  it("without sort rules: option key; with one symbol pinned: expiration, strike, option key", async () => {
    const all = await screen({ pageSize: 50 });
    expect(all.results.map((r) => r.optionKey)).toEqual([...all.results.map((r) => r.optionKey)].sort());
    const pinned = (await screen({ pageSize: 100, symbols: ["AAPL"] })).results;
    const expected = [...pinned].sort(
      (a, b) => a.expiration.localeCompare(b.expiration) || a.strike - b.strike || a.optionKey.localeCompare(b.optionKey),
    );
    expect(pinned.map((r) => r.optionKey)).toEqual(expected.map((r) => r.optionKey));
    expect(pinned.map((r) => r.optionKey)).not.toEqual([...pinned.map((r) => r.optionKey)].sort());
  });
});

describe("top-level body fields and their aliases", () => {
  it("type, symbols, dte, signed delta, open interest, yield and spread bounds are filters", async () => {
    const today = etToday();
    const body = {
      type: "put",
      symbols: ["NVDA", "AAPL", "MSFT"],
      dteMin: 5,
      dteMax: 60,
      deltaMin: -0.45,
      deltaMax: -0.1,
      openInterestMin: 50,
      yieldPercentMin: 0.2,
      bidAskSpreadPctMax: 30,
    };
    const condition =
      "type = 'put' and symbol in ('NVDA', 'AAPL', 'MSFT') and expiration - $1::date between 5 and 60 and delta between -0.45 and -0.1 and open_interest >= 50 and yield_percent >= 0.2 and spread_pct <= 30";
    const expected = await expectedCount(condition, [today]);
    expect(expected).toBeGreaterThan(0);
    expect((await screen(body)).count).toBe(expected);
    const aliases = {
      optionType: "put",
      tickers: "NVDA,AAPL,MSFT",
      minDte: 5,
      maxDte: 60,
      minDelta: -0.45,
      maxDelta: -0.1,
      minOpenInterest: 50,
      minYieldPercent: 0.2,
      maxBidAskSpreadPct: 30,
    };
    expect((await screen(aliases)).count).toBe(expected);
  });
});

describe("pagination", () => {
  const keys = (r: ScreenerResponse) => r.results.map((x) => x.optionKey);

  it("body page and pageSize win when above 0; the query's apply otherwise; default 10", async () => {
    const first100 = keys(await screen({ pageSize: 100 }));
    expect(keys(await screen({}))).toEqual(first100.slice(0, 10));
    expect(keys(await screen({ page: 2, pageSize: 7 }, "?page=5&pageSize=3"))).toEqual(first100.slice(7, 14));
    expect(keys(await screen({ page: 0, pageSize: -1 }, "?page=3&pageSize=4"))).toEqual(first100.slice(8, 12));
    expect(keys(await screen({}, "?page=2&pageSize=5"))).toEqual(first100.slice(5, 10));
    expect(keys(await screen({ perPage: 6, page: 2 }))).toEqual(first100.slice(6, 12));
  });

  it("pageSize above 100 is capped at 100 in the body and the query, whatever the plan", async () => {
    expect((await screen({ pageSize: 500 })).results).toHaveLength(100);
    expect((await screen({}, "?pageSize=1000")).results).toHaveLength(100);
  });

  it("count is capped at 1000 with countCapped; hasMore tells whether another page exists", async () => {
    const all = await screen({});
    expect(await expectedCount("true")).toBe(1000);
    expect(all).toMatchObject({ count: 1000, countCapped: true, hasMore: true });
    const one = await screen({ pageSize: 100, filters: [{ field: "symbol", operation: "eq", value: "XLF" }] });
    const n = await expectedCount("symbol = 'XLF'");
    expect(one).toMatchObject({ count: n, countCapped: false, hasMore: false });
    const paged = await screen({ pageSize: n - 1, filters: [{ field: "symbol", operation: "eq", value: "XLF" }] });
    expect(paged.hasMore).toBe(true);
    expect((await screen({ page: 1000 })).results).toEqual([]);
  });
});

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

describe("bad input is a 400 with the envelope, never a 500", () => {
  const cases: [string, unknown, RegExp][] = [
    ["unknown field", { filters: [{ field: "bogus", operation: "gt", value: 1 }] }, /'bogus'/],
    ["wrong value type", { filters: [{ field: "strike", operation: "gt", value: "abc" }] }, /'strike' expects a number/],
    ["integer expected", { filters: [{ field: "volume", operation: "gt", value: 1.5 }] }, /'volume' expects an integer/],
    ["bad date", { filters: [{ field: "expiration", operation: "gt", value: "2026-02-30" }] }, /'expiration' expects a date/],
    [
      "bad boolean",
      { filters: [{ field: "premiumIncreasing", operation: "eq", value: "yes" }] },
      /'premiumIncreasing' expects true or false/,
    ],
    ["bad set value", { filters: [{ field: "moneyness", operation: "eq", value: "deep" }] }, /one of itm, atm, otm/],
    ["neq", { filters: [{ field: "strike", operation: "neq", value: 1 }] }, /'neq' is not supported/],
    ["between", { filters: [{ field: "strike", operation: "between", value: [1, 2] }] }, /'between' is not supported/],
    ["unknown operation", { filters: [{ field: "strike", operation: "near", value: 1 }] }, /'near'/],
    ["like on a number", { filters: [{ field: "strike", operation: "like", value: "1" }] }, /'like' applies to text/],
    ["gt on text", { filters: [{ field: "sector", operation: "gt", value: "a" }] }, /does not apply/],
    ["empty list", { filters: [{ field: "symbols", operation: "in", value: [] }] }, /list/],
    ["bad ticker", { filters: [{ field: "symbols", operation: "in", value: ["NV DA"] }] }, /a ticker/],
    ["bad sort direction", { filters: [{ field: "strike", operation: "sort", value: "up" }] }, /asc, desc/],
    ["bad earnings mode", { filters: [{ field: "earnings", operation: "excludeEarnings", value: "week" }] }, /'symbol'\/'ticker'/],
    ["excludeEarnings on another field", { filters: [{ field: "strike", operation: "excludeEarnings" }] }, /'earnings'/],
    ["strikeFilter out of range", { filters: [{ field: "strikeFilter", operation: "strikeFilter", value: 0 }] }, /1-100/],
    ["filter without a field", { filters: [{ operation: "gt", value: 1 }] }, /filters\.0\.field/],
    ["too many filters", { filters: Array.from({ length: 51 }, () => ({ field: "strike", operation: "gt", value: 1 })) }, /filters/],
    ["unknown top-level field", { dteMn: 5 }, /dteMn/],
    ["delta above 1", { deltaMin: -1.5 }, /deltaMin/],
    ["conflicting aliases", { dteMin: 5, minDte: 6 }, /aliases/],
    ["page beyond the deepest", { page: 1001 }, /page/],
    ["an array body", [], /body/i],
    ["a string body", '"screen"', /body/i],
    ["not JSON", "{type: put}", /JSON/],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      const error = await expectError(await post(body), 400, "invalid_body");
      expect(error.message).toMatch(message);
    });
  }

  it("dteMin above dteMax is invalid_range; a body over 64 KB and a bad query page are refused", async () => {
    await expectError(await post({ dteMin: 30, dteMax: 10 }), 400, "invalid_range");
    const big = await expectError(
      await post({ filters: [{ field: "symbol", operation: "like", value: "x".repeat(70_000) }] }),
      400,
      "invalid_body",
    );
    expect(big.message).toMatch(/64 KB/);
    await expectError(await post({}, "?page=0"), 400, "invalid_parameter");
    await expectError(await post({}, "?pageSize=abc"), 400, "invalid_parameter");
  });
});

describe("values the schema lets through but PostgreSQL would refuse are a 400 naming the field, never a 500", () => {
  const refused = async (body: unknown, message: RegExp) => {
    const error = await expectError(await post(body), 400, "invalid_body");
    expect(error.message).toMatch(message);
  };
  const rule = (field: string, operation: string, value?: unknown) => ({ filters: [{ field, operation, value }] });
  const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

  it("operations named like Object.prototype's properties are unknown operations", async () => {
    for (const op of PROTOTYPE_NAMES) {
      await refused(rule("strike", op, 1), new RegExp(`Unknown filter operation '${op}' for field 'strike'`));
      await refused(rule("symbols", op, "SPY"), new RegExp(`'${op}' for field 'symbols'`));
    }
  });

  it("sort directions and earnings modes named like Object.prototype's properties, or that are not strings, are refused", async () => {
    for (const direction of [...PROTOTYPE_NAMES, "CONSTRUCTOR", { toString: 1 }, ["asc"], 1]) {
      await refused(rule("strike", "sort", direction), /Sort direction for 'strike' must be asc/);
    }
    for (const mode of ["constructor", "__proto__", { toString: 1 }, ["symbol"]]) {
      await refused(rule("earnings", "excludeEarnings", mode), /'excludeEarnings' takes no value/);
    }
  });

  it("integers beyond their column's range, for every integer field (int4 counts, int2 scores) and openInterestMin", async () => {
    await refused({ openInterestMin: 3_000_000_000 }, /body field 'openInterestMin'/);
    await refused({ minOpenInterest: 3_000_000_000 }, /body field 'minOpenInterest'/);
    await refused(rule("volume", "gt", 3_000_000_000), /'volume' expects an integer from -2147483648 to 2147483647, got 3000000000/);
    await refused(rule("openInterest", "gte", "3000000000"), /'openInterest' expects an integer/);
    expect((await screen({ openInterestMin: 2_147_483_647 })).count).toBe(0);

    // The column types, read from the database rather than the field table.
    const types = new Map(
      (
        await marketSql().query(
          "select column_name, data_type from information_schema.columns where table_name = 'screener_contracts' and table_schema = current_schema()",
        )
      ).map((r) => [r.column_name as string, r.data_type as string]),
    );
    const RANGES: Record<string, [number, number]> = { integer: [-2_147_483_648, 2_147_483_647], smallint: [-32_768, 32_767] };
    const integerFields = SCREENER_FIELDS.filter((f) => f.type === "integer");
    expect(integerFields.map((f) => f.name)).toEqual(expect.arrayContaining(["volume", "openInterest", "liquidity", "overallScore"]));
    for (const field of integerFields) {
      for (const name of [field.name, ...field.aliases]) {
        const [min, max] = DAYS_FIELDS.has(name) ? [-100_000, 100_000] : RANGES[types.get(COLUMN[name]!)!]!;
        expect(field.range, name).toEqual([min, max]);
        const expects = new RegExp(`'${name}' expects an integer from ${min} to ${max}`);
        await refused(rule(name, "gt", max + 1), expects);
        await refused(rule(name, "lt", min - 1), expects);
        await refused(rule(name, "in", [1, max + 1]), expects);
        // The bounds themselves reach the database and are answered.
        expect((await post(rule(name, "lte", max))).status, `${name} lte ${max}`).toBe(200);
        expect((await post(rule(name, "gte", min))).status, `${name} gte ${min}`).toBe(200);
      }
    }
  });

  it("days from today whose date would pass the year 9999 (dte and dividend days; the top-level bounds stop at 3650)", async () => {
    for (const name of [...DAYS_FIELDS]) {
      for (const n of [1_000_000_000, 3_000_000, -3_000_000, "3000000"]) {
        await refused(rule(name, "gt", n), new RegExp(`'${name}' expects an integer from -100000 to 100000 \\(days from today\\)`));
      }
      await refused(rule(name, "in", "5,3000000"), new RegExp(`'${name}'`));
    }
    for (const field of ["dteMin", "minDte", "dteMax", "maxDte"]) {
      await refused({ [field]: 3_000_000 }, new RegExp(`body field '${field}'`));
      await refused({ [field]: 1_000_000_000 }, new RegExp(`body field '${field}'`));
    }
  });

  it("dates and timestamps outside the years 0001-9999, however they are written", async () => {
    for (const name of ["expiration", "earningsDate", "nextDividendDate", "exdividenddate", "nextDividendPaymentDate"]) {
      await refused(rule(name, "gt", "0000-01-01"), new RegExp(`'${name}' expects a date YYYY-MM-DD of the years 0001-9999`));
      await refused(rule(name, "in", ["2026-01-02", "0000-12-31"]), new RegExp(`'${name}'`));
      expect((await post(rule(name, "gt", "0001-01-01"))).status).toBe(200);
      expect((await post(rule(name, "lt", "9999-12-31"))).status).toBe(200);
    }
    for (const name of ["lastTradeDate", "lastUpdatedDate"]) {
      for (const value of ["0000-01-01", "0000-06-30T12:00:00Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:00:00-05:00"]) {
        await refused(rule(name, "gt", value), new RegExp(`'${name}' expects an ISO 8601 timestamp`));
      }
      for (const value of ["0001-01-01", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "9999-12-31T18:00:00-05:00"]) {
        expect((await post(rule(name, "gt", value))).status, `${name} gt ${value}`).toBe(200);
      }
    }
  });

  it("text with U+0000, which PostgreSQL text cannot hold", async () => {
    for (const op of ["eq", "like", "in"]) await refused(rule("sector", op, "Tech\u0000nology"), /'sector' expects a string/);
  });
});

/** Numeric fields the property draws filters and sorts from, with their columns (independent of the field table). */
const NUMERIC: Record<string, string> = {
  strike: "strike",
  delta: "delta",
  volume: "volume",
  openInterest: "open_interest",
  yieldPercent: "yield_percent",
  impliedVolatility: "implied_volatility",
  premium: "premium",
  annualizedReturn: "annualized_return",
  cushion: "cushion",
};
const SPELLINGS = ["gt", ">", "gte", ">=", "lt", "<", "lte", "<=", "eq", "=", "=="] as const;
const HOLDS: Record<(typeof SPELLINGS)[number], (a: number, b: number) => boolean> = {
  gt: (a, b) => a > b,
  ">": (a, b) => a > b,
  gte: (a, b) => a >= b,
  ">=": (a, b) => a >= b,
  lt: (a, b) => a < b,
  "<": (a, b) => a < b,
  lte: (a, b) => a <= b,
  "<=": (a, b) => a <= b,
  eq: (a, b) => a === b,
  "=": (a, b) => a === b,
  "==": (a, b) => a === b,
};

interface Rule {
  field: string;
  operation: string;
  value: unknown;
}

/** Deciles of each numeric column: thresholds that select something, and some values that occur exactly. */
const thresholds: Record<string, number[]> = {};
let symbols: string[] = [];

beforeAll(async () => {
  const sql = marketSql();
  for (const [field, column] of Object.entries(NUMERIC)) {
    const [r] = await sql.query(
      `select percentile_disc(array[0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]) within group (order by ${column}) as q from screener_contracts where ${column} is not null`,
    );
    thresholds[field] = r!.q as number[];
  }
  symbols = (await sql.query("select distinct symbol from screener_contracts order by 1")).map((r) => r.symbol as string);
});

const ruleArb = fc
  .constantFrom(...Object.keys(NUMERIC))
  .chain((field) =>
    fc.record({ field: fc.constant(field), operation: fc.constantFrom(...SPELLINGS), value: fc.constantFrom(...thresholds[field]!) }),
  );
const sortArb = fc.record({
  field: fc.constantFrom(...Object.keys(NUMERIC)),
  operation: fc.constant("sort"),
  value: fc.constantFrom("asc", "desc", "ascending", "descending", ""),
});

describe("property: random screens", () => {
  it("return rows that satisfy every filter, in the requested order, in disjoint pages that add up to the unpaginated result", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(ruleArb, { maxLength: 3 }),
        fc.array(sortArb, { maxLength: 2 }),
        fc.option(fc.constantFrom("call", "put"), { nil: undefined }),
        fc.subarray(symbols, { maxLength: 3 }),
        fc.integer({ min: 3, max: 20 }),
        async (filters, sorts, type, picked, k) => {
          const base = { type, symbols: picked.length ? picked : undefined, filters: [...filters, ...sorts] as Rule[] };
          const whole = await screen({ ...base, pageSize: 4 * k });
          const pages: ScreenerResponse[] = [];
          for (let page = 1; page <= 4; page++) pages.push(await screen({ ...base, page, pageSize: k }));
          const paged = pages.flatMap((p) => p.results.map((r) => r.optionKey));
          expect(paged).toEqual(whole.results.map((r) => r.optionKey));
          expect(new Set(paged).size).toBe(paged.length);
          if (whole.count >= 0 && whole.count < 1000) expect(whole.results.length).toBe(Math.min(whole.count, 4 * k));

          const keys = whole.results.map((r) => r.optionKey);
          if (keys.length === 0) return;
          const columns = Object.entries(NUMERIC).map(([f, c]) => `${c} as "${f}"`);
          const stored = await marketSql().query(
            `select option_key, symbol, type, expiration::text as expiration, ${columns.join(", ")} from screener_contracts where option_key = any($1::text[])`,
            [keys],
          );
          const byKey = new Map(stored.map((r) => [r.option_key as string, r]));
          const rows = keys.map((key) => byKey.get(key)!);
          for (const row of rows) {
            if (type) expect(row.type).toBe(type);
            if (picked.length) expect(picked).toContain(row.symbol);
            for (const f of filters) {
              const v = row[f.field] as number | null;
              expect(v !== null && HOLDS[f.operation](v, f.value as number), `${row.option_key} ${f.field} ${f.operation} ${f.value}`).toBe(
                true,
              );
            }
          }
          // Without sort rules, one pinned underlying is listed by expiration, then strike.
          const order =
            sorts.length || picked.length !== 1
              ? sorts
              : [
                  { field: "expiration", value: "asc" },
                  { field: "strike", value: "asc" },
                ];
          for (let i = 1; i < rows.length; i++) {
            const [a, b] = [rows[i - 1]!, rows[i]!];
            let decided = 0;
            for (const s of order) {
              const [x, y] = [a[s.field] as number | string | null, b[s.field] as number | string | null];
              if (x === y) continue;
              decided = x === null ? 1 : y === null ? -1 : (x < y ? -1 : 1) * (s.value.startsWith("desc") ? -1 : 1);
              break;
            }
            if (decided === 0) decided = (a.option_key as string) < (b.option_key as string) ? -1 : 1;
            expect(decided, `${a.option_key} before ${b.option_key}`).toBe(-1);
          }
        },
      ),
      { numRuns: 25, seed: 20261123 },
    );
  });
});

describe("fuzz: arbitrary bodies and rules", () => {
  const postRaw = (body: string, contentType = "application/json") =>
    call("/v1/contracts/screen", {
      ...auth,
      method: "POST",
      headers: { ...(auth.headers as Record<string, string>), "Content-Type": contentType },
      body,
    });

  it("any JSON body is answered 200 or 400 with the envelope, never 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (body) => {
        const res = await postRaw(JSON.stringify(body));
        expect([200, 400], JSON.stringify(body).slice(0, 200)).toContain(res.status);
        if (res.status === 400) expect((await res.json()) as object).toMatchObject({ error: expect.stringMatching(/^invalid_/) });
        else await res.arrayBuffer();
      }),
      { numRuns: 60, seed: 1123 },
    );
  });

  it("rules with any accepted or random field, operation and value are answered 200 or 400, never 500", async () => {
    const names = ["strike", "symbols", "dte", "earnings", "sector", "moneyness", "lastTradeDate", "call", "expiration", "x"];
    const operations = [
      "gt",
      "==",
      "like",
      "in",
      "exclude",
      "excludeEarnings",
      "cleanupLiquidity",
      "lastTradeToday",
      "lastTradeRecent",
      "strikeFilter",
      "sort",
      "neq",
    ];
    const rule = fc.record({
      field: fc.constantFrom(...names),
      operation: fc.constantFrom(...operations),
      value: fc.jsonValue({ maxDepth: 1 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 4 }), async (filters) => {
        const res = await postRaw(JSON.stringify({ filters }));
        expect([200, 400], JSON.stringify(filters).slice(0, 300)).toContain(res.status);
        await res.arrayBuffer();
      }),
      { numRuns: 80, seed: 2311 },
    );
  });

  it("a request without a body screens everything; another content type is a 400", async () => {
    const bare = await call("/v1/contracts/screen", { ...auth, method: "POST" });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { results: unknown[] }).results).toHaveLength(10);
    expect((await postRaw("type=put", "application/x-www-form-urlencoded")).status).toBe(400);
  });
});
