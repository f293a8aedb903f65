import { beforeAll, describe, expect, it } from "vitest";
import { SCREENER_FIELDS } from "../../../src/screener/fields";
import { bearer, newAccount } from "../../support/accounts";
import { marketSql } from "../../support/market-db";
import { COLUMN, DAYS_FIELDS, screenClient } from "../../support/screen-fixture";
import { expectError } from "../../support/worker";

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

const { post, screen } = screenClient(() => auth);

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
