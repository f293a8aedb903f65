import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { writeQuoteTable } from "../../scripts/loaders/write-quote-table";
import { openBackend } from "../../scripts/sql-endpoint/sql-backend";
import { parseQuoteTable, priceContracts } from "../../scripts/loaders/cboe-quote-table";

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

  it("solves IV from the mid where the file has none and computes Greeks in API units", () => {
    const table = parseQuoteTable(excerpt.replace("0.2531,0.4594", "0,0.4594"));
    const priced = priceContracts(table, 0.0025, 0);
    const atm = priced.find((c) => c.optionSymbol === "SPXW220207C04500000")!;
    expect(atm.vendorIv).toBeNull();
    expect(atm.iv).toBeGreaterThan(0.1);
    expect(atm.iv).toBeLessThan(0.4);
    expect(atm.theta).toBeLessThan(0);
    expect(atm.vega).toBeGreaterThan(0);
    expect(Math.abs(atm.delta! - 0.4594)).toBeLessThan(0.05);
  });

  it("stores a contract at its expiry instant with null Greeks and the vendor's IV, solving none", () => {
    // The excerpt read as a file of 2022-02-07: its close is the settlement instant of the SPXW 2022-02-07 contracts.
    const asOfExpiry = (text: string) => priceContracts(parseQuoteTable(text, { asOf: "2022-02-07" }), 0.0025, 0);
    const priced = asOfExpiry(excerpt);
    const settled = priced.filter((c) => c.contract.expiration === "2022-02-07");
    expect(settled).toHaveLength(20);
    for (const c of settled) {
      expect(c.iv).toBe(c.vendorIv);
      expect([c.delta, c.gamma, c.theta, c.vega, c.rho]).toEqual([null, null, null, null, null]);
    }
    // Without the vendor's IV none is solved from the mid: a settled option's price implies no volatility.
    const solved = asOfExpiry(excerpt.replace("0.2531,0.4594", "0,0.4594")).find((c) => c.optionSymbol === "SPXW220207C04500000")!;
    expect([solved.vendorIv, solved.iv, solved.delta]).toEqual([null, null, null]);
    // The later expirations keep their Greeks.
    expect(priced.find((c) => c.optionSymbol === "SPXW220218C04500000")!.gamma).toBeGreaterThan(0);
  });

  it("loads idempotently: a second load of the same file changes nothing", async () => {
    const backend = await openBackend({ dataDir: "memory://" });
    try {
      await backend.migrate("./drizzle");
      const table = parseQuoteTable(excerpt);
      const priced = priceContracts(table, 0.043, 0);
      const snapshot = async () =>
        (await backend.typedQuery("select option_symbol, bid, ask, open_interest, iv, delta from option_quotes order by option_symbol"))
          .rows;
      expect(await writeQuoteTable(backend, table, priced, 0.043)).toBe(42);
      const first = await snapshot();
      expect(await writeQuoteTable(backend, table, priced, 0.043)).toBe(42);
      expect(await snapshot()).toEqual(first);
      expect(first).toHaveLength(42);
      const [state] = (await backend.typedQuery("select version from market_state")).rows;
      expect(Number(state?.version)).toBeGreaterThan(0);
    } finally {
      await backend.close();
    }
  });
});
