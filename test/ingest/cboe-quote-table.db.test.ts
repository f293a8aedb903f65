import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { writeQuoteTable } from "../../ingest/sources/cboe/write-quote-table";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { ingestDatabase } from "../support/ingest-database";
import { parseQuoteTable } from "../../ingest/sources/cboe/quote-table";

const excerpt = readFileSync("test/fixtures/cboe/SPX_2022-02-04_excerpt.csv", "utf8");
const malformed = readFileSync("test/fixtures/cboe/SPX_malformed_rows.csv", "utf8");

describe("Cboe quote-table loader", () => {
  it("reads the header: underlying, spot, the session of a Saturday download, AM and PM roots", () => {
    const table = parseQuoteTable(excerpt);
    expect(table).toMatchObject({
      underlying: "SPX",
      name: "Standard & Poors 500 Index",
      assetType: "index",
      spot: 4500.5298,
      sessionDate: "2022-02-04",
      rejected: [],
    });
    expect(table.asOf.toISOString()).toBe("2022-02-04T21:00:00.000Z");
    expect(table.contracts).toHaveLength(42);
    const settlement = (symbol: string) => table.contracts.find((c) => c.optionSymbol === symbol)?.settlement;
    expect(settlement("SPX220218C04500000")).toBe("am");
    expect(settlement("SPXW220218C04500000")).toBe("pm");
    expect(parseQuoteTable(excerpt, { asOf: "2022-02-03" }).sessionDate).toBe("2022-02-03");
    // A download dated on a holiday (Washington's Birthday 2022) holds the session before.
    expect(parseQuoteTable(excerpt, { asOf: "2022-02-21" }).sessionDate).toBe("2022-02-18");
  });

  it("reports each malformed row with its line number and reason, and keeps the good ones", () => {
    const table = parseQuoteTable(malformed);
    expect(table.contracts.map((c) => c.optionSymbol)).toEqual(["SPXW220207C04500000", "SPXW220207P04500000"]);
    expect(table.rejected.map((r) => r.row)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    const reasons = table.rejected.map((r) => r.reason).join("\n");
    expect(reasons).toMatch(/expected 22 columns/);
    expect(reasons).toMatch(/bad expiration date 'Someday'/);
    expect(reasons).toMatch(/does not match/);
    expect(reasons).toMatch(/call Bid is not a number/);
    expect(reasons).toMatch(/call Delta is not a number in \[-1, 1\]/);
    expect(reasons).toMatch(/call Open Interest/);
    expect(reasons).toMatch(/bad call symbol 'spxw220207c04570000'/);
  });

  it("refuses a file that is not a quote table", () => {
    expect(() => parseQuoteTable("a,b\n1,2\n")).toThrow(/not a Cboe quote table/);
  });

  describe("through the pipeline's quote writer", () => {
    let backend: SqlBackend;
    beforeAll(async () => {
      backend = await ingestDatabase();
    });
    beforeEach(async () => {
      await backend.typedQuery("truncate option_quotes, equity_quotes, underlyings, market_state, feed_positions cascade");
    });
    afterAll(async () => backend.close());

    /** The table loaded as `file` at a rate of 0.25 %, then its stored quotes by symbol. */
    const load = async (text: string, file: string, asOf?: string) => {
      await writeQuoteTable(backend, file, parseQuoteTable(text, { asOf }), { rate: 0.0025, dividendYield: 0 });
      const { rows } = await backend.typedQuery(
        "select option_symbol, expiration::text as expiration, bid, ask, last, volume, open_interest, iv, delta, gamma, theta, vega, rho, underlying_price from option_quotes",
      );
      return new Map(rows.map((r) => [r.option_symbol as string, r]));
    };

    it("keeps what the file states (bid, ask, last, volume, open interest, Cboe's IV, its spot) and computes Greeks in API units", async () => {
      const quotes = await load(excerpt, "excerpt.csv");
      expect(quotes.size).toBe(42);
      expect(quotes.get("SPXW220207C04500000")).toMatchObject({
        bid: 21.4,
        ask: 21.9,
        last: 20.96,
        volume: 1648,
        open_interest: 665,
        iv: 0.2531,
        underlying_price: 4500.5298,
      });
      const atm = quotes.get("SPXW220207C04500000")!;
      expect(Math.abs(Number(atm.delta) - 0.4594)).toBeLessThan(0.05);
      const { rows } = await backend.typedQuery(`select price from equity_quotes where symbol = 'SPX'`);
      expect(rows[0]!.price).toBe(4500.5298);
    });

    it("solves IV from the mid where the file has none", async () => {
      const atm = (await load(excerpt.replace("0.2531,0.4594", "0,0.4594"), "no-iv.csv")).get("SPXW220207C04500000")!;
      expect(Number(atm.iv)).toBeGreaterThan(0.1);
      expect(Number(atm.iv)).toBeLessThan(0.4);
      expect(Number(atm.iv)).not.toBe(0.2531);
      expect(Number(atm.theta)).toBeLessThan(0);
      expect(Number(atm.vega)).toBeGreaterThan(0);
      expect(Math.abs(Number(atm.delta) - 0.4594)).toBeLessThan(0.05);
    });

    it("stores a contract at its expiry instant with null Greeks and the vendor's IV, solving none", async () => {
      // The excerpt read as a file of 2022-02-07: its close is the settlement instant of the SPXW 2022-02-07 contracts.
      const quotes = await load(excerpt, "at-expiry.csv", "2022-02-07");
      const settled = [...quotes.values()].filter((q) => q.expiration === "2022-02-07");
      expect(settled).toHaveLength(20);
      for (const q of settled) {
        expect(q.iv).not.toBeNull();
        expect([q.delta, q.gamma, q.theta, q.vega, q.rho]).toEqual([null, null, null, null, null]);
      }
      // The later expirations keep their Greeks.
      expect(Number(quotes.get("SPXW220218C04500000")!.gamma)).toBeGreaterThan(0);
      // Without the vendor's IV none is solved from the mid: a settled option's price implies no volatility.
      await backend.typedQuery("truncate option_quotes, feed_positions");
      const solved = (await load(excerpt.replace("0.2531,0.4594", "0,0.4594"), "at-expiry-no-iv.csv", "2022-02-07")).get(
        "SPXW220207C04500000",
      )!;
      expect([solved.iv, solved.delta]).toEqual([null, null]);
    });

    it("loads idempotently: a second load of the same file finds its position and changes nothing", async () => {
      const table = parseQuoteTable(excerpt);
      const snapshot = async () =>
        (await backend.typedQuery("select option_symbol, bid, ask, open_interest, iv, delta from option_quotes order by option_symbol"))
          .rows;
      expect(await writeQuoteTable(backend, "excerpt.csv", table, { rate: 0.043, dividendYield: 0 })).toBe(42);
      const first = await snapshot();
      const [before] = (await backend.typedQuery("select version from market_state")).rows;
      expect(await writeQuoteTable(backend, "excerpt.csv", table, { rate: 0.043, dividendYield: 0 })).toBe(0);
      expect(await snapshot()).toEqual(first);
      expect(first).toHaveLength(42);
      expect((await backend.typedQuery("select version from market_state")).rows[0]).toEqual(before);
      // Another file is another feed: it is written.
      expect(await writeQuoteTable(backend, "excerpt-again.csv", table, { rate: 0.043, dividendYield: 0 })).toBe(42);
    });
  });
});
