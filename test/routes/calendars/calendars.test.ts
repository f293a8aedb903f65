import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, etToday, marketSql } from "../../support/market-db";
import { earningsRoute } from "../../../src/routes/calendars/earnings";
import { dividendsRoute } from "../../../src/routes/calendars/dividends";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;
const earnings = async (query = "") => {
  const res = await api.get(`/v1/earnings${query ? `?${query}` : ""}`);
  return { res, body: await contractBody(earningsRoute, res) };
};
const dividends = async (query = "") => {
  const res = await api.get(`/v1/dividends${query ? `?${query}` : ""}`);
  return { res, body: await contractBody(dividendsRoute, res) };
};

const today = etToday();

/** Stored events in a window as (date, symbol) keys, in calendar order. */
async function storedKeys(table: "earnings" | "dividends", from: string, to: string, coveredOnly = false): Promise<string[]> {
  const date = table === "earnings" ? "earnings_date" : "ex_date";
  const rows = (await marketSql().query(
    `select t.${date}::text as d, t.symbol from ${table} t left join underlyings u using (symbol)
      where t.${date} between $1::date and $2::date ${coveredOnly ? "and coalesce(u.in_coverage, false)" : ""}
      order by t.${date}, t.symbol`,
    [from, to],
  )) as { d: string; symbol: string }[];
  return rows.map((r) => `${r.d} ${r.symbol}`);
}

beforeAll(async () => {
  api = await apiClient();
  // Three companies reporting on one date, so pages split inside a date.
  const sql = marketSql();
  const day = addDays(today, 10);
  for (const symbol of ["CALA", "CALB", "CALC"]) {
    await sql.query(
      `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
       values ($1, $1 || ' Corp.', 'stock', 'https://logos.example.com/c.png', true, true) on conflict do nothing`,
      [symbol],
    );
    await sql.query(
      `insert into earnings (symbol, earnings_date, timing, fiscal_quarter, eps_estimated, revenue_estimated)
       values ($1, $2::date, 'dmh', null, null, null) on conflict do nothing`,
      [symbol, day],
    );
  }
});

describe("GET /v1/earnings", () => {
  it("defaults to the 30 days from today's ET date, every stored event in date then symbol order", async () => {
    const { res, body } = await earnings();
    expect(res.headers.get("X-Limit-Clamped")).toBeNull();
    expect(body.from).toBe(today);
    expect(body.to).toBe(addDays(today, 29));
    const keys = await storedKeys("earnings", today, addDays(today, 29));
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(body.results.map((e) => `${e.earningsDate} ${e.symbol}`)).toEqual(keys);
    expect(body.truncated).toBe(false);
    expect(body.nextCursor).toBeNull();
    const timings = new Set(body.results.map((e) => e.timing));
    for (const t of timings) expect(["bmo", "amc", "dmh", "unknown"]).toContain(t);
    const cala = body.results.find((e) => e.symbol === "CALA");
    expect(cala).toEqual({
      symbol: "CALA",
      name: "CALA Corp.",
      earningsDate: addDays(today, 10),
      timing: "dmh",
      fiscalQuarter: null,
      epsEstimated: null,
      revenueEstimated: null,
    });
  });

  it("serves one day, a `to` alone ending the window, and the whole 90 days", async () => {
    const day = addDays(today, 10);
    const one = await earnings(`from=${day}&to=${day}`);
    expect(one.body.results.map((e) => e.symbol)).toEqual(expect.arrayContaining(["CALA", "CALB", "CALC"]));
    expect(one.body.results.every((e) => e.earningsDate === day)).toBe(true);

    const toOnly = await earnings(`to=${addDays(today, 5)}`);
    expect([toOnly.body.from, toOnly.body.to]).toEqual([today, addDays(today, 5)]);

    const full = await earnings(`from=${today}&to=${addDays(today, 89)}&limit=250`);
    expect(full.body.results.map((e) => `${e.earningsDate} ${e.symbol}`)).toEqual(
      (await storedKeys("earnings", today, addDays(today, 89))).slice(0, 250),
    );
  });

  it("refuses from after to and windows over 90 days (400 invalid_range)", async () => {
    await expectError(await api.get(`/v1/earnings?from=${addDays(today, 5)}&to=${addDays(today, 4)}`), 400, "invalid_range");
    await expectError(await api.get(`/v1/earnings?from=${today}&to=${addDays(today, 90)}`), 400, "invalid_range");
    await expectError(await api.get(`/v1/dividends?to=${addDays(today, 200)}`), 400, "invalid_range");
    // A `to` in the past with no `from`: the window is that one day, not an error.
    const past = await earnings(`to=${addDays(today, -3)}`);
    expect([past.body.from, past.body.to]).toEqual([addDays(today, -3), addDays(today, -3)]);
  });

  it("clamps a `from` before the plan's 7-day history window to it, with X-Limit-Clamped", async () => {
    const { res, body } = await earnings(`from=${addDays(today, -60)}&to=${addDays(today, 20)}`);
    expect(res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(body.from).toBe(addDays(today, -7));
    expect(body.results.every((e) => e.earningsDate >= addDays(today, -7))).toBe(true);
    // Clamped first, then measured: the window served is 28 days.
    const inHistory = await earnings(`from=${addDays(today, -7)}&to=${addDays(today, 82)}`);
    expect(inHistory.res.headers.get("X-Limit-Clamped")).toBeNull();
    // A range entirely before the history window is empty.
    const old = await earnings("from=2020-01-01&to=2020-01-31");
    expect(old.res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(old.body.results).toEqual([]);
  });

  it("filters by symbol and refuses a malformed one (400 invalid_parameter)", async () => {
    const { body } = await earnings(`symbol=CALB&to=${addDays(today, 30)}`);
    expect(body.results.map((e) => e.symbol)).toEqual(["CALB"]);
    expect((await earnings(`symbol=NOSUCH`)).body.results).toEqual([]);
    for (const bad of ["aapl", "A$B", "TOOLONGSYMBOL1"]) {
      await expectError(await api.get(`/v1/earnings?symbol=${encodeURIComponent(bad)}`), 400, "invalid_parameter");
    }
    for (const bad of ["from=2026-13-01", "to=tomorrow", "from=2026-02-30"]) {
      await expectError(await api.get(`/v1/earnings?${bad}`), 400, "invalid_parameter");
    }
  });

  it("pages with signed cursors: every event once, also inside one date", async () => {
    const keys = await storedKeys("earnings", today, addDays(today, 29));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof earnings>> = await earnings(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.body.results.length).toBeLessThanOrEqual(2);
      expect(page.body.truncated).toBe(page.body.nextCursor !== null);
      seen.push(...page.body.results.map((e) => `${e.earningsDate} ${e.symbol}`));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    expect(seen).toEqual(keys);
    expect(pages).toBe(Math.ceil(keys.length / 2));
  });

  it("refuses forged cursors and cursors of another query (400 invalid_parameter)", async () => {
    const { body } = await earnings("limit=1");
    const cursor = body.nextCursor!;
    const forged = `${cursor.slice(0, -2)}${cursor.endsWith("AA") ? "BB" : "AA"}`;
    await expectError(await api.get(`/v1/earnings?limit=1&cursor=${encodeURIComponent(forged)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/earnings?limit=2&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/dividends?limit=1&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
  });

  it("takes limit 1-1000 (default 250) and clamps it to the plan's 250 rows with X-Limit-Clamped", async () => {
    const clamped = await earnings(`from=${today}&to=${addDays(today, 89)}&limit=1000`);
    expect(clamped.res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(clamped.body.results.length).toBeLessThanOrEqual(250);
    const within = await earnings("limit=250");
    expect(within.res.headers.get("X-Limit-Clamped")).toBeNull();
    for (const bad of ["0", "-1", "2.5", "x"]) await expectError(await api.get(`/v1/earnings?limit=${bad}`), 400, "invalid_parameter");
  });
});

describe("GET /v1/dividends", () => {
  const window = `from=${addDays(today, -7)}&to=${addDays(today, 82)}`;
  const outside = ["BTAFF", "NSRGY", "RHHBY"];

  it("lists the coverage universe only, in ex-date then symbol order", async () => {
    const { body } = await dividends(window);
    expect(body.results.map((e) => `${e.exDate} ${e.symbol}`)).toEqual(
      (await storedKeys("dividends", addDays(today, -7), addDays(today, 82), true)).slice(0, 250),
    );
    expect(body.results.some((e) => outside.includes(e.symbol))).toBe(false);
    for (const e of body.results) {
      expect(["Quarterly", "Semi-Annual"]).toContain(e.frequency);
      expect(e.payDate > e.exDate).toBe(true);
      expect(e.amount).toBeGreaterThan(0);
    }
  });

  it("lists every symbol of the source with includeAll=true, and a symbol asked for by name always", async () => {
    const all = await dividends(`${window}&includeAll=true`);
    const listed = new Set(all.body.results.map((e) => e.symbol));
    for (const s of outside) expect(listed.has(s), s).toBe(true);
    expect(all.body.results.map((e) => `${e.exDate} ${e.symbol}`)).toEqual(
      (await storedKeys("dividends", addDays(today, -7), addDays(today, 82))).slice(0, 250),
    );
    const asked = await dividends(`${window}&symbol=NSRGY`);
    expect(asked.body.results.length).toBeGreaterThan(0);
    expect(asked.body.results.every((e) => e.symbol === "NSRGY" && e.name.includes("Nestle"))).toBe(true);
    expect((await dividends(`${window}&includeAll=false`)).body).toEqual((await dividends(window)).body);
    for (const bad of ["yes", "1", "TRUE"]) await expectError(await api.get(`/v1/dividends?includeAll=${bad}`), 400, "invalid_parameter");
  });

  it("shares the calendar rules: default window, invalid_range, clamps", async () => {
    const { body } = await dividends();
    expect([body.from, body.to]).toEqual([today, addDays(today, 29)]);
    await expectError(await api.get(`/v1/dividends?from=${addDays(today, 1)}&to=${today}`), 400, "invalid_range");
    await expectError(await api.get("/v1/dividends?symbol=bad!"), 400, "invalid_parameter");
    const clamped = await dividends(`from=${addDays(today, -30)}&limit=5000`);
    expect(clamped.res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(clamped.body.from).toBe(addDays(today, -7));
  });
});
