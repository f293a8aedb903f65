import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, daysBetween, etToday, marketSql } from "../../support/market-db";
import { optionQuoteRoute } from "../../../src/routes/quotes-and-options/option-quote";
import { contractBody } from "../../support/contract";

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
});
