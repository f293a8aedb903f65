import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScreenerResponse } from "../../../src/routes/screener/screen";
import { bearer, newAccount } from "../../support/accounts";
import { marketSql } from "../../support/market-db";
import { screenClient } from "../../support/screen-fixture";
import { call } from "../../support/worker";

let auth: RequestInit;
beforeAll(async () => {
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

const { screen } = screenClient(() => auth);

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
