import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, daysBetween, etToday, marketSql } from "../../support/market-db";
import { usageRoute } from "../../../src/routes/account/usage";
import { batchQuotesRoute } from "../../../src/routes/quotes-and-options/batch-quotes";
import { optionQuoteRoute } from "../../../src/routes/quotes-and-options/option-quote";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;

/** Edge-case contracts on a dedicated underlying, inserted for these tests. */
const today = etToday();
const yymmdd = (d: string) => d.slice(2, 4) + d.slice(5, 7) + d.slice(8, 10);
const FIELD = {
  inverted: `FLDT${yymmdd(addDays(today, 10))}C00050000`,
  noBid: `FLDT${yymmdd(addDays(today, 10))}C00055000`,
  zeroDte: `FLDT${yymmdd(today)}P00049000`,
  deepItm: `FLDT${yymmdd(addDays(today, 30))}C00010000`,
};

beforeAll(async () => {
  api = await apiClient();
  const sql = marketSql();
  await sql.query("delete from option_quotes where underlying = 'FLDT'");
  await sql.query(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage) values ('FLDT', 'Field Rules Test Corp.', 'stock', 'https://logos.example.com/fldt.png', true, true) on conflict do nothing`,
  );
  await sql.query(
    `insert into equity_quotes (symbol, price, as_of) values ('FLDT', 52, now()) on conflict (symbol) do update set price = 52`,
  );
  const row = (
    symbol: string,
    exp: string,
    strike: number,
    side: string,
    bid: number | null,
    ask: number | null,
    iv: number | null,
    delta: number | null,
  ) =>
    sql.query(
      `insert into option_quotes (option_symbol, underlying, root, expiration, strike, side, settlement, bid, ask, last, volume, open_interest, iv, delta, gamma, theta, vega, rho, underlying_price, as_of)
       values ($1, 'FLDT', 'FLDT', $2, $3, $4, 'pm', $5, $6, 1.1, 10, 100, $7, $8, 0.01, -0.02, 0.05, 0.01, 52, '2026-01-02T20:45:00Z')`,
      [symbol, exp, strike, side, bid, ask, iv, delta],
    );
  await row(FIELD.inverted, addDays(today, 10), 50, "call", 1.2, 1.0, 0.3, 0.55);
  await row(FIELD.noBid, addDays(today, 10), 55, "call", null, 0.35, null, null);
  await row(FIELD.zeroDte, today, 49, "put", 0.05, 0.1, 0.45, -0.2);
  await row(FIELD.deepItm, addDays(today, 30), 10, "call", 41.9, 42.1, null, 1);
});

describe("GET /v1/options/quotes/{optionSymbol}", () => {
  it("answers a stored contract field by field", async () => {
    const [db] = await marketSql().query(
      "select *, expiration::text as exp from option_quotes where underlying = 'AAPL' and iv is not null order by open_interest desc limit 1",
    );
    const res = await api.get(`/v1/options/quotes/${db!.option_symbol}`);
    expect(res.status).toBe(200);
    const q = await contractBody(optionQuoteRoute, res);
    expect(q).toMatchObject({
      optionSymbol: db!.option_symbol,
      underlying: "AAPL",
      expiration: db!.exp,
      strike: db!.strike,
      side: db!.side,
      bid: db!.bid,
      ask: db!.ask,
      last: db!.last,
      volume: db!.volume,
      openInterest: db!.open_interest,
      underlyingPrice: db!.underlying_price,
    });
    expect(q.mid).toBeCloseTo((db!.bid + db!.ask) / 2, 4);
    expect(q.spreadPercent).toBeCloseTo(((db!.ask - db!.bid) / ((db!.bid + db!.ask) / 2)) * 100, 3);
    expect(q.iv).toBeCloseTo(db!.iv * 100, 3);
    expect(q.delta).toBeCloseTo(db!.delta, 5);
    expect(q.dte).toBe(daysBetween(etToday(), q.expiration as string));
    expect(q.asOf).toBe(new Date(db!.as_of).toISOString());
    expect(Object.keys(q).sort()).toEqual(
      [
        "optionSymbol",
        "underlying",
        "expiration",
        "strike",
        "side",
        "bid",
        "ask",
        "mid",
        "last",
        "volume",
        "openInterest",
        "iv",
        "delta",
        "gamma",
        "theta",
        "vega",
        "rho",
        "underlyingPrice",
        "spreadPercent",
        "dte",
        "asOf",
      ].sort(),
    );
  });

  it("accepts the space-padded 21-character form and answers in the compact form", async () => {
    const [db] = await marketSql().query("select option_symbol, root from option_quotes where underlying = 'SPY' limit 1");
    const padded = db!.root.padEnd(6, " ") + (db!.option_symbol as string).slice((db!.root as string).length);
    expect(padded).toHaveLength(21);
    const q = await contractBody(optionQuoteRoute, await api.get(`/v1/options/quotes/${encodeURIComponent(padded)}`));
    expect(q.optionSymbol).toBe(db!.option_symbol);
  });

  it("applies the field rules: inverted market, missing bid, zero DTE, deep in the money", async () => {
    const inverted = await api.read(optionQuoteRoute, `/v1/options/quotes/${FIELD.inverted}`);
    expect(inverted).toMatchObject({ bid: 1.2, ask: 1.0, mid: 1.1, spreadPercent: null, iv: 30 });
    const noBid = await api.read(optionQuoteRoute, `/v1/options/quotes/${FIELD.noBid}`);
    expect(noBid).toMatchObject({ bid: null, ask: 0.35, mid: null, spreadPercent: null, iv: null, delta: null });
    const zero = await api.read(optionQuoteRoute, `/v1/options/quotes/${FIELD.zeroDte}`);
    expect(zero).toMatchObject({ dte: 0, mid: 0.075, iv: 45, delta: -0.2 });
    expect(zero.spreadPercent).toBeCloseTo(66.6667, 3);
    const deep = await api.read(optionQuoteRoute, `/v1/options/quotes/${FIELD.deepItm}`);
    expect(deep).toMatchObject({ dte: 30, mid: 42, delta: 1, iv: null });
    expect(deep.spreadPercent).toBeCloseTo((0.2 / 42) * 100, 4);
  });

  it("answers 400 invalid_parameter for a malformed symbol, 404 for an unknown one, 400 missing_symbol when absent", async () => {
    for (const bad of ["AAPL", "aapl250117c00175000", "AAPL251317C00175000", "%20%20%20", "A".repeat(40)]) {
      await expectError(await api.get(`/v1/options/quotes/${bad}`), 400, "invalid_parameter");
    }
    await expectError(await api.get("/v1/options/quotes/AAPL200117C00175000"), 404, "not_found");
    await expectError(await api.get("/v1/options/quotes/"), 400, "missing_symbol");
  });
});

describe("GET /v1/options/quotes?symbols=", () => {
  it("returns each distinct contract once and lists unknown symbols as missing, counting one request", async () => {
    const rows = await marketSql().query(
      "select option_symbol, root from option_quotes where underlying = 'QQQ' order by option_symbol limit 3",
    );
    const [a, b, c] = rows.map((r) => r.option_symbol as string);
    const paddedA = rows[0]!.root.padEnd(6, " ") + a!.slice((rows[0]!.root as string).length);
    const unknown = "QQQ200117C00100000";
    // The ET-day count, not X-RateLimit-Remaining: the bucket may refill a token between two calls.
    const today = async () => (await api.read(usageRoute, "/v1/usage")).requests!.today;
    const before = await today();
    const res = await api.get(`/v1/options/quotes?symbols=${[a, b, c, a, encodeURIComponent(paddedA), unknown].join(",")}`);
    expect(res.status).toBe(200);
    expect(await today()).toBe(before + 2);
    const body = await contractBody(batchQuotesRoute, res);
    expect(body.quotes.map((q) => q.optionSymbol).sort()).toEqual([a, b, c].sort());
    expect(body.missing).toEqual([unknown]);
  });

  it("allows 20 distinct symbols and refuses 21 with too_many_symbols", async () => {
    const rows = await marketSql().query("select option_symbol from option_quotes where underlying = 'SPY' limit 21");
    const symbols = rows.map((r) => r.option_symbol as string);
    const twenty = await api.get(`/v1/options/quotes?symbols=${symbols.slice(0, 20).join(",")}`);
    expect((await contractBody(batchQuotesRoute, twenty)).quotes).toHaveLength(20);
    await expectError(await api.get(`/v1/options/quotes?symbols=${symbols.join(",")}`), 400, "too_many_symbols");
    // Duplicates do not count twice.
    expect((await api.get(`/v1/options/quotes?symbols=${[...symbols.slice(0, 20), symbols[0]].join(",")}`)).status).toBe(200);
  });

  it("requires symbols and rejects malformed ones", async () => {
    await expectError(await api.get("/v1/options/quotes"), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols="), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols=,,"), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols=SPY,QQQ"), 400, "invalid_parameter");
  });
});
