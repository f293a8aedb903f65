import { beforeAll, describe, expect, it } from "vitest";
import type { ScreenerResponse } from "../../../src/routes/screener/screen";
import { SCREENER_FIELDS, ACCEPTED_FIELD_NAMES } from "../../../src/screener/fields";
import { ACCEPTED_OPERATIONS } from "../../../src/screener/operations";
import { bearer, newAccount } from "../../support/accounts";
import { addDays, etToday, marketSql } from "../../support/market-db";
import { COLUMN, DAYS_FIELDS, SPEC_FIELDS, expectedCount, screenClient } from "../../support/screen-fixture";
import { TEST_CLOCK } from "../../support/test-clock";

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

const { screen } = screenClient(() => auth);

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
