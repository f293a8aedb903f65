import { beforeAll, describe, expect, it } from "vitest";
import { IV_SOURCES, OPEN_INTEREST_SOURCES } from "../../../src/analytics/flow";
import { FlowSchema, flowRoute, type Flow } from "../../../src/routes/flow/flow";
import { bearer, newAccount } from "../../support/accounts";
import { contractBody } from "../../support/contract";
import { retentionStart } from "../../../src/domain/flow-window";
import { etToday, marketSql } from "../../support/market-db";
import { call } from "../../support/worker";

type Print = Flow["prints"][number];

/** The spec's flow print table (options-data-service.md, "Flow print"): every field and its type; none is nullable. */
const SPEC_FIELDS = {
  executedAt: "string",
  ticker: "string",
  optionSymbol: "string",
  optionType: "string",
  strike: "number",
  expiration: "string",
  dte: "integer",
  side: "string",
  sentiment: "string",
  executionType: "string",
  premium: "number",
  size: "integer",
  price: "number",
  underlyingPrice: "number",
  otmPct: "number",
  volume: "integer",
  openInterest: "integer",
  opening: "boolean",
  delta: "number",
  impliedVolatility: "number",
  isETFOrIndex: "boolean",
} as const;

/** Every field of the spec's table present with its type (a null fails), and our two source fields. */
function expectSpecFields(p: Print, where: string): void {
  const print = p as unknown as Record<string, unknown>;
  for (const [field, type] of Object.entries(SPEC_FIELDS)) {
    const value = print[field];
    const ok = type === "integer" ? Number.isInteger(value) : typeof value === type && (type !== "number" || Number.isFinite(value));
    expect(ok, `${where}: ${field} is ${JSON.stringify(value)}, not a ${type}`).toBe(true);
  }
  expect(IV_SOURCES, where).toContain(p.ivSource);
  expect(OPEN_INTEREST_SOURCES, where).toContain(p.openInterestSource);
  if (p.ivSource === "none") expect([p.impliedVolatility, p.delta], where).toEqual([0, 0]);
  else expect(p.impliedVolatility, where).toBeGreaterThan(0);
  if (p.openInterestSource === "none") expect([p.openInterest, p.opening], where).toEqual([0, false]);
  else expect(p.opening, where).toBe(p.size > p.openInterest);
  if (p.underlyingPrice === 0) expect(p.otmPct, where).toBe(0);
}

let auth: RequestInit;
const flow = async (query: string): Promise<Flow> => contractBody(flowRoute, await call(`/v1/flow?${query}`, auth));

/** Filters that split a window into disjoint parts, used in turn while a part holds more prints than one page. */
const REFINEMENTS: [string, string[]][] = [
  ["type", ["call", "put"]],
  ["executionType", ["sweep", "block", "split"]],
  ["sentiment", ["bullish", "bearish", "neutral"]],
];

/** Every print matching `query`, in pages of at most 500 prints over disjoint filters. */
async function everyPrint(query: string, depth = 0): Promise<Print[]> {
  const body = await flow(`${query}&limit=500`);
  if (body.count === body.prints.length) return body.prints;
  const refinement = REFINEMENTS[depth];
  if (!refinement) throw new Error(`${query}: ${body.count} prints, more than one page after every refinement`);
  const [name, values] = refinement;
  const parts: Print[] = [];
  for (const value of values) parts.push(...(await everyPrint(`${query}&${name}=${value}`, depth + 1)));
  return parts;
}

let sessions: string[];
let tickers: string[];
const earliest = retentionStart(etToday());

beforeAll(async () => {
  // The internal plan pages 500 prints; the standard plans stop at 250.
  auth = bearer((await newAccount({ plan: "internal" })).keys[0]!.key);
  // The seeded market's prints (tests add prints of made-up tickers the market does not list), of the sessions that can
  // be asked for: on or after today − 7 days (the seeded market holds one more, older).
  const market = "ticker in (select symbol from underlyings)";
  sessions = (
    (await marketSql().query(
      `select distinct session_date::text as d from flow_prints where ${market} and session_date >= $1::date order by 1`,
      [earliest],
    )) as { d: string }[]
  ).map((r) => r.d);
  tickers = ((await marketSql().query(`select distinct ticker from flow_prints where ${market} order by 1`)) as { ticker: string }[]).map(
    (r) => r.ticker,
  );
});

describe("GET /v1/flow: every print carries every field of the spec's table", () => {
  it("serves every print of the retained sessions with each field of its type, no null", async () => {
    expect(sessions.length).toBeGreaterThanOrEqual(5);
    expect(tickers.length).toBeGreaterThan(5);
    const served: Print[] = [];
    for (const session of sessions) {
      const seen: Print[] = [];
      for (let i = 0; i < tickers.length; i += 20) {
        const symbols = tickers.slice(i, i + 20).join(",");
        seen.push(...(await everyPrint(`symbols=${symbols}&from=${session}&to=${session}&minPremium=0`)));
      }
      // The whole window, not a sample: as many prints as the database holds for it.
      const [{ n }] = (await marketSql().query(
        "select count(*)::int as n from flow_prints where session_date = $1::date and print_class <> 'canceled' and ticker = any($2::text[])",
        [session, tickers],
      )) as [{ n: number }];
      expect(seen.length, session).toBe(n);
      for (const p of seen) expectSpecFields(p, `${session} ${p.optionSymbol} ${p.executedAt}`);
      served.push(...seen);

      // The session's largest prints market-wide, whatever else other tests have added to it.
      const top = await flow(`from=${session}&to=${session}&minPremium=0&limit=500`);
      expect(top.prints).toHaveLength(500);
      for (const p of top.prints) expectSpecFields(p, `${session} top ${p.optionSymbol} ${p.executedAt}`);
    }
    // The served sources are the stored ones.
    const stored = (await marketSql().query(
      "select iv_source as source, count(*)::int as n from flow_prints where print_class <> 'canceled' and ticker = any($1::text[]) and session_date >= $2::date group by 1",
      [tickers, earliest],
    )) as { source: string; n: number }[];
    const count = (source: string) => served.filter((p) => p.ivSource === source).length;
    for (const { source, n } of stored) expect(count(source), source).toBe(n);
    expect(count("trade")).toBeGreaterThan(served.length / 2);
  });

  it("stores no null in a served column, whoever wrote the print", async () => {
    const [row] = (await marketSql().query(
      `select count(*)::int as n from flow_prints where underlying_price is null or otm_pct is null or open_interest is null
          or opening is null or delta is null or iv is null or iv_source is null or open_interest_source is null`,
    )) as [{ n: number }];
    expect(row.n).toBe(0);
  });

  it("breaks its contract when any field of a print is null", async () => {
    const session = sessions.at(-1)!;
    const body = await flow(`from=${session}&to=${session}&limit=1`);
    const print = body.prints[0]!;
    expect(FlowSchema.safeParse(body).success).toBe(true);
    for (const field of [...Object.keys(SPEC_FIELDS), "ivSource", "openInterestSource"]) {
      const broken = { ...body, prints: [{ ...print, [field]: null }] };
      expect(FlowSchema.safeParse(broken).success, field).toBe(false);
    }
  });
});
