import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rankInRange } from "../../../src/analytics/iv-rank";
import { topIvRoute, topIvrRoute, type TopIvItem } from "../../../src/routes/volatility/top-iv";
import { apiClient, type ApiClient } from "../../support/api-client";
import { contractBody } from "../../support/contract";
import { bumpMarketVersion, loadedSession, marketSql } from "../../support/market-db";
import { expectError } from "../../support/worker";

let api: ApiClient;
let session: string;
beforeAll(async () => {
  api = await apiClient();
  session = await loadedSession();
});

describe("GET /v1/stocks/top-iv and /v1/stocks/top-ivr", () => {
  const ordered = (items: TopIvItem[], key: "stockIV" | "ivr") => {
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1]!, items[i]!];
      expect(a[key] > b[key] || (a[key] === b[key] && a.symbol < b.symbol), `${a.symbol} before ${b.symbol}`).toBe(true);
    }
  };

  /** Stocks arranged for the rules: one above 200% IV, one just below, and two tied. */
  const arranged = { HIVX: 2.5, MIVX: 1.99, TIEA: 1.7, TIEB: 1.7 };
  let eligible: number;
  beforeAll(async () => {
    const sql = marketSql();
    for (const [symbol, iv] of Object.entries(arranged)) {
      await sql.query(
        `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
         values ($1, $1, 'stock', 'https://example.com/logo.png', true, false) on conflict do nothing`,
        [symbol],
      );
      // A year of history below today's value, and one week ago 10 points lower.
      await sql.query(
        `insert into iv_daily (symbol, date, iv)
         select $1, $2::date - k, case when k = 7 then $3 - 0.1 else $3 * 0.5 end from generate_series(0, 300) k
         on conflict (symbol, date) do update set iv = excluded.iv`,
        [symbol, session, iv],
      );
      await sql.query("update iv_daily set iv = $3 where symbol = $1 and date = $2", [symbol, session, iv]);
    }
    await bumpMarketVersion();
    const [row] = await sql.query(
      `select count(*)::int as n from iv_daily i join underlyings u using (symbol), market_state m
       where i.date = m.session_date and u.asset_type = 'stock' and i.iv > 0 and i.iv <= 2`,
    );
    eligible = row!.n as number;
  });

  it("ranks stocks by IV, 20 by default, IV above 200% excluded, ties by symbol", async () => {
    const body = await contractBody(topIvRoute, await api.get("/v1/stocks/top-iv"));
    expect(body.stocks).toHaveLength(Math.min(20, eligible));
    ordered(body.stocks, "stockIV");
    const symbols = body.stocks.map((s) => s.symbol);
    expect(symbols).not.toContain("HIVX");
    expect(symbols).toContain("MIVX");
    expect(symbols.indexOf("TIEB") - symbols.indexOf("TIEA")).toBe(1);
    for (const s of body.stocks) {
      expect(s.stockIV).toBeLessThanOrEqual(200);
      expect(s.ivr).toBeGreaterThanOrEqual(0);
      expect(s.ivr).toBeLessThanOrEqual(100);
      expect(s.logoUrl).toMatch(/^https?:\/\//);
    }
    const mivx = body.stocks.find((s) => s.symbol === "MIVX")!;
    expect(mivx).toMatchObject({ stockIV: 199, ivr: 100, name: "MIVX" });
    expect(mivx.ivChange1w).toBeCloseTo(10, 8);
  });

  it("ranks stocks by IV rank with the same fields", async () => {
    const body = await contractBody(topIvrRoute, await api.get("/v1/stocks/top-ivr?limit=100"));
    expect(body.stocks).toHaveLength(Math.min(100, eligible));
    ordered(body.stocks, "ivr");
    const iv = await contractBody(topIvRoute, await api.get("/v1/stocks/top-iv?limit=100"));
    expect(new Set(body.stocks.map((s) => s.symbol))).toEqual(new Set(iv.stocks.map((s) => s.symbol)));
    for (const s of body.stocks) expect(iv.stocks.find((r) => r.symbol === s.symbol)).toEqual(s);
  });

  describe("with the session's underlying baselines", () => {
    /**
     * Two stocks of this test's own whose baselines (the 52-week IV extremes before the session)
     * differ from their history on purpose, so the answer shows which was read: today's IV 50%,
     * the history at 30%; BASA's baselines 10–90% (rank 50), BASB's 20–40% (today a new high).
     */
    const baselines = { BASA: [0.1, 0.9], BASB: [0.2, 0.4] } as const;
    /** Each listed stock's IV, 52-week extremes (the session included) and one-week reference, aggregated from its whole history. */
    const fromHistory = async (symbols: string[]) => {
      const rows = await marketSql().query(
        `select c.symbol, c.iv, max(i.iv) as high, min(i.iv) as low,
           (select w.iv from iv_daily w where w.symbol = c.symbol and w.date <= c.date - 7 and w.date > c.date - 14 and w.iv > 0
             order by w.date desc limit 1) as week
         from iv_daily c join iv_daily i on i.symbol = c.symbol and i.date > c.date - 365 and i.date <= c.date and i.iv > 0
         where c.date = $1 and c.symbol = any($2::text[]) group by c.symbol, c.iv, c.date`,
        [session, symbols],
      );
      return new Map(rows.map((r) => [r.symbol as string, r as { iv: number; high: number; low: number; week: number | null }]));
    };

    beforeAll(async () => {
      const sql = marketSql();
      for (const [symbol, [low, high]] of Object.entries(baselines)) {
        await sql.query(
          `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
           values ($1, $1, 'stock', 'https://example.com/logo.png', true, false) on conflict do nothing`,
          [symbol],
        );
        await sql.query(
          `insert into iv_daily (symbol, date, iv) select $1, $2::date - k, case when k = 0 then 0.5 else 0.3 end from generate_series(0, 300) k
           on conflict (symbol, date) do update set iv = excluded.iv`,
          [symbol, session],
        );
        await sql.query(
          `insert into screener_underlying_baselines (session_date, symbol, iv_low, iv_high) values ($2, $1, $3, $4)
           on conflict (session_date, symbol) do update set iv_low = excluded.iv_low, iv_high = excluded.iv_high`,
          [symbol, session, low, high],
        );
      }
      await bumpMarketVersion();
    });
    afterAll(async () => {
      const sql = marketSql();
      const symbols = Object.keys(baselines);
      for (const table of ["screener_underlying_baselines", "iv_daily", "underlyings"])
        await sql.query(`delete from ${table} where symbol = any($1::text[])`, [symbols]);
      await bumpMarketVersion();
    });

    it("ranks a stock within its stored extremes merged with the session's IV, not a year of history read again", async () => {
      const body = await contractBody(topIvrRoute, await api.get("/v1/stocks/top-ivr?limit=100"));
      expect(body.stocks.find((s) => s.symbol === "BASA")?.ivr).toBeCloseTo(50, 9);
      expect(body.stocks.find((s) => s.symbol === "BASB")?.ivr).toBe(100);
    });

    it("gives every stock the rank and one-week change of its whole IV history", async () => {
      const listed = [
        ...(await contractBody(topIvRoute, await api.get("/v1/stocks/top-iv?limit=100"))).stocks,
        ...(await contractBody(topIvrRoute, await api.get("/v1/stocks/top-ivr?limit=100"))).stocks,
      ];
      const history = await fromHistory(listed.map((s) => s.symbol));
      // The seeded stocks' extremes come from their baselines (written from their history); the arranged ones (no row) from their history.
      const seeded = [...new Set(listed.map((s) => s.symbol))].filter((symbol) => !(symbol in arranged) && !(symbol in baselines));
      const [withBaselines] = await marketSql().query(
        "select count(*)::int as n from screener_underlying_baselines where session_date = $1 and symbol = any($2::text[])",
        [session, seeded],
      );
      expect(seeded.length).toBeGreaterThan(0);
      expect(withBaselines!.n).toBe(seeded.length);
      for (const s of listed.filter((s) => !(s.symbol in baselines))) {
        const h = history.get(s.symbol)!;
        expect(s.stockIV, s.symbol).toBeCloseTo(h.iv * 100, 3);
        expect(s.ivr, s.symbol).toBeCloseTo(rankInRange(h.iv, h.high, h.low) ?? 0, 6);
        expect(s.ivChange1w, s.symbol).toBeCloseTo(h.week === null ? 0 : (h.iv - h.week) * 100, 3);
      }
    });
  });

  it("caps limit at 100 silently and refuses limits below 1 or not integers", async () => {
    const res = await api.get("/v1/stocks/top-iv?limit=1000");
    const body = await contractBody(topIvRoute, res);
    expect(body.stocks.length).toBeLessThanOrEqual(100);
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
    const five = await contractBody(topIvRoute, await api.get("/v1/stocks/top-iv?limit=5"));
    expect(five.stocks).toEqual(body.stocks.slice(0, 5));
    await expectError(await api.get("/v1/stocks/top-iv?limit=0"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/stocks/top-ivr?limit=2.5"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/stocks/top-ivr?limit=ten"), 400, "invalid_parameter");
  });
});
