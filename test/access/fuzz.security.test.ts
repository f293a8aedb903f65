import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { routes } from "../../src/routes";
import { ACCEPTED_FIELD_NAMES, SCREENER_FIELDS } from "../../src/screener/fields";
import { ACCEPTED_OPERATIONS } from "../../src/screener/operations";
import { bearer, newAccount } from "../support/accounts";
import { etToday } from "../support/market-db";
import { call, expectError } from "../support/worker";

/** Deterministic garbage: the same seed always sends the same requests. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 4294967296;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T;
  const atoms = [
    "",
    " ",
    "0",
    "-1",
    "1e309",
    "NaN",
    "Infinity",
    "0x1F",
    "3.14",
    "9".repeat(40),
    "null",
    "[]",
    "{}",
    "'",
    '"',
    "%00",
    "%",
    "%ZZ",
    "\u0000",
    "é",
    "💥",
    "a,b,,c",
    "<script>",
    "../../etc",
    "SPY",
    "spy",
    "2026-02-30",
    "2026-12-18",
    "0000-01-01",
    "9999-12-31",
    "3000000000",
    "call",
    "put",
    "true",
    "ods_sess_x",
    "x".repeat(3000),
  ];
  const value = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(atoms)).join(pick(["", ",", " ", "-"]));
  return { next, pick, value };
}

/** Every query parameter any route declares, plus one nobody knows. */
const QUERY_NAMES = [...new Set(routes.flatMap((r) => (r.query instanceof z.ZodObject ? Object.keys(r.query.shape) : []))), "unknownParam"];

// Two accounts keep 400 requests under the per-account limit, so handlers (not the limiter) see the input;
// the screener's fuzz runs on an internal-plan account of its own.
let auths: RequestInit[] = [];
let screenerAuth: RequestInit;
beforeAll(async () => {
  auths = await Promise.all([newAccount(), newAccount()].map(async (a) => bearer((await a).keys[0]!.key)));
  screenerAuth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
});

/** A 4xx/5xx answer is the envelope, names no SQL and no stack; returns its body. */
function expectEnvelope(res: Response, text: string, what: string) {
  const body = JSON.parse(text) as { error: string; status: number; request_id: string; message: string };
  expect(body.status, what).toBe(res.status);
  expect(body.request_id, what).toBe(res.headers.get("X-Request-ID"));
  expect(text, what).not.toMatch(/at \w+ \(|select |postgres/i);
  return body;
}

describe("fuzzed input", () => {
  it("never answers 5xx (except the documented 502/503) nor hangs; every error is the envelope", async () => {
    const g = generator(20261120);
    const getRoutes = routes.filter((r) => r.method === "get" && r.access !== "admin");
    for (let i = 0; i < 400; i++) {
      const route = g.pick(getRoutes);
      const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(g.value()).slice(0, 300));
      const query = Array.from({ length: Math.floor(g.next() * 4) }, () => `${g.pick(QUERY_NAMES)}=${encodeURIComponent(g.value())}`).join(
        "&",
      );
      const url = `${path}${query ? `?${query}` : ""}`;
      const res = await call(url, { ...auths[i % 2], signal: AbortSignal.timeout(5_000) });
      const text = await res.text();
      expect(res.status, url).not.toBe(429);
      expect([500, 504].includes(res.status), `${res.status} for ${url}: ${text.slice(0, 200)}`).toBe(false);
      if (res.status >= 400) expectEnvelope(res, text, url);
    }
  });
});

/** Query date parameters of the GET routes, with whatever else a route needs to reach its date checks. */
const DATE_PARAMETERS: [path: string, name: string][] = [
  ["/v1/chain/SPY?", "expiration"],
  ["/v1/earnings?", "from"],
  ["/v1/earnings?", "to"],
  ["/v1/dividends?", "from"],
  ["/v1/dividends?", "to"],
  ["/v1/flow?", "from"],
  ["/v1/flow?", "fromDate"],
  ["/v1/flow?", "to"],
  ["/v1/flow?", "toDate"],
  ["/v1/flow/net?symbol=SPY&", "from"],
  ["/v1/flow/net?symbol=SPY&", "to"],
];

describe("query dates", () => {
  it("of the year 0000 are a 400 invalid_parameter naming the parameter on every route that takes a date", async () => {
    for (const [path, name] of DATE_PARAMETERS) {
      for (const date of ["0000-01-01", "0000-12-31"]) {
        const error = await expectError(await call(`${path}${name}=${date}`, auths[0]), 400, "invalid_parameter");
        expect(error.message, `${path}${name}`).toMatch(new RegExp(`'${name}'.*0001-9999`));
      }
    }
  });

  it("at the ends of the years 0001-9999 are answered without a 5xx on every GET route and parameter", async () => {
    const getRoutes = routes.filter((r) => r.method === "get" && r.access !== "admin");
    for (const route of getRoutes) {
      const names = route.query instanceof z.ZodObject ? Object.keys(route.query.shape) : [];
      const path = route.path.replace(/\{\w+\}/g, "SPY");
      for (const name of names) {
        for (const date of ["0000-01-01", "0001-01-01", "9999-12-31"]) {
          const url = `${path}?${name}=${date}${route.path.startsWith("/v1/flow/net") && name !== "symbol" ? "&symbol=SPY" : ""}`;
          const res = await call(url, screenerAuth);
          const text = await res.text();
          expect(res.status < 500, `${res.status} for ${url}: ${text.slice(0, 200)}`).toBe(true);
          if (res.status >= 400) expectEnvelope(res, text, url);
        }
      }
    }
  });

  it("a market-wide flow window reaching 9999-12-31 is refused at once (it used to count sessions past the year 9999 forever)", async () => {
    for (const to of ["9999-12-31", "9999-12-30"]) {
      const res = await call(`/v1/flow?from=${etToday()}&to=${to}`, auths[1]);
      expect((await expectError(res, 400, "out_of_range")).message).toMatch(/at most 3 sessions/);
    }
  });
});

/** Property names every plain object inherits: a lookup table that is a plain object answers them. */
const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__defineGetter__",
  "__lookupGetter__",
];
/** Integers beyond int2, int4, the days a date can move, safe integers and doubles; as numbers and as text. */
const HUGE_NUMBERS: unknown[] = [
  32_768,
  -32_769,
  100_001,
  3_000_000,
  -3_000_000,
  1_000_000_000,
  2 ** 31,
  -(2 ** 31) - 1,
  3_000_000_000,
  2 ** 53 + 2,
  1e15,
  1e16,
  1e300,
  -1e300,
  5e-324,
  -0,
  "3000000000",
  "99999999999999999999",
  "-2147483649",
];
/** Dates and timestamps at and beyond the years 0001-9999, in the forms clients write them. */
const EDGE_YEARS = [
  "0000-01-01",
  "0000-12-31",
  "0001-01-01",
  "9999-12-31",
  "+010000-01-01",
  "-000001-01-01",
  "10000-01-01",
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:30:00+01:00",
  "9999-12-31T23:00:00-05:00",
  "9999-12-31T23:59:59.999Z",
  "2026-02-29",
];
/** JSON that is legal but odd: deep, prototype-named keys, NUL and lone surrogates, long, mixed lists. */
const ODD_JSON: unknown[] = [
  JSON.parse(`${"[".repeat(5_000)}1${"]".repeat(5_000)}`),
  JSON.parse(`${'{"a":'.repeat(2_000)}1${"}".repeat(2_000)}`),
  JSON.parse('{"__proto__":{"toString":1},"constructor":1,"valueOf":null}'),
  { toString: 1 },
  { toString: "asc", valueOf: "desc" },
  ["asc"],
  [[]],
  {},
  "\u0000",
  "Tech\u0000nology",
  "\ud800",
  "💥",
  "",
  " ",
  "x".repeat(300),
  "%_\\",
  "SPY,,QQQ",
  ["SPY", 1, null, { a: 1 }],
  null,
  true,
];
const oddValue = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES, ...HUGE_NUMBERS, ...EDGE_YEARS, ...ODD_JSON),
  fc.array(fc.constantFrom(...HUGE_NUMBERS, ...EDGE_YEARS, ...PROTOTYPE_NAMES), { minLength: 1, maxLength: 3 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
);
const screenerRule = fc.record(
  {
    field: fc.oneof(fc.constantFrom(...ACCEPTED_FIELD_NAMES), fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 })),
    operation: fc.oneof(
      fc.constantFrom(...ACCEPTED_OPERATIONS, "neq", "between"),
      fc.constantFrom(...PROTOTYPE_NAMES),
      fc.string({ maxLength: 8 }),
    ),
    value: oddValue,
  },
  { requiredKeys: ["field", "operation"] },
);
/** Top-level fields: the bounds' names with odd values, and prototype-named keys (which a strict object must refuse). */
const topLevel = fc.dictionary(
  fc.constantFrom(
    "dteMin",
    "maxDte",
    "openInterestMin",
    "minOpenInterest",
    "deltaMin",
    "yieldPercentMin",
    "page",
    "pageSize",
    "symbols",
    "type",
    ...PROTOTYPE_NAMES,
  ),
  oddValue,
  { maxKeys: 2 },
);
const screenerBody = fc.tuple(topLevel, fc.array(screenerRule, { maxLength: 4 })).map(([top, filters]) => ({ ...top, filters }));

describe("fuzzed screener bodies", () => {
  const screen = (body: string) =>
    call("/v1/contracts/screen", {
      ...screenerAuth,
      method: "POST",
      headers: { ...(screenerAuth.headers as Record<string, string>), "Content-Type": "application/json" },
      body,
      signal: AbortSignal.timeout(10_000),
    });
  /** 200, or a 400 with the envelope and a body, range or query code: never a 5xx. */
  async function expectAnswered(body: string) {
    const res = await screen(body);
    const text = await res.text();
    expect([200, 400], `${res.status} for ${body.slice(0, 300)}: ${text.slice(0, 200)}`).toContain(res.status);
    if (res.status === 400) expect(["invalid_body", "invalid_range"]).toContain(expectEnvelope(res, text, body.slice(0, 300)).error);
    return res.status;
  }

  it("the regressions: prototype-named operations and directions, out-of-range integers, days and years answer 400 invalid_body", async () => {
    const regressions: unknown[] = [
      ...["constructor", "__proto__", "toString"].map((operation) => ({ filters: [{ field: "strike", operation, value: 1 }] })),
      ...["constructor", "__proto__", "toString", "hasOwnProperty"].map((value) => ({
        filters: [{ field: "strike", operation: "sort", value }],
      })),
      { openInterestMin: 3_000_000_000 },
      { filters: [{ field: "volume", operation: "gte", value: 3_000_000_000 }] },
      { filters: [{ field: "dte", operation: "lte", value: 1_000_000_000 }] },
      { filters: [{ field: "dte", operation: "lte", value: 3_000_000 }] },
      { filters: [{ field: "nextDividendDays", operation: "gt", value: 3_000_000 }] },
      { dteMin: 3_000_000 },
      { dteMax: 1_000_000_000 },
      { filters: [{ field: "expiration", operation: "gt", value: "0000-01-01" }] },
      { filters: [{ field: "lastTradeDate", operation: "gt", value: "0000-01-01" }] },
    ];
    for (const body of regressions) {
      const text = JSON.stringify(body);
      const res = await screen(text);
      await expectError(res, 400, "invalid_body");
    }
  });

  it("never answer 5xx: prototype names, huge integers, out-of-range years and odd JSON in fields, operations, values and bounds", async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(screenerBody, async (body) => {
        statuses.add(await expectAnswered(JSON.stringify(body)));
      }),
      { numRuns: 300, seed: 20261124 },
    );
    // The generator reaches both answers, so it exercises the compiler and the database, not only the schema.
    expect([...statuses].sort()).toEqual([200, 400]);
  });

  // One request per field, operation and value: about a thousand, 14 s on a quiet machine.
  it("never answer 5xx to a threshold or a list of each class of odd value, on every field", async () => {
    const values = [3_000_000_000, "0000-01-01", "9999-12-31T23:00:00-05:00", "constructor", "a\u0000b", { toString: 1 }];
    for (const { name: field } of SCREENER_FIELDS) {
      for (const operation of ["gt", "in"]) {
        for (const value of values) await expectAnswered(JSON.stringify({ filters: [{ field, operation, value }] }));
      }
    }
  }, 90_000);
});
