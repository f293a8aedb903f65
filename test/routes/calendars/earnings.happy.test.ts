import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { arrangeSameDayEarnings, calendarReaders, storedKeys } from "../../support/calendar-fixture";
import { addDays, etToday } from "../../support/market-db";
import { expectError } from "../../support/worker";

let api: ApiClient;
const { earnings } = calendarReaders(() => api);
const today = etToday();

beforeAll(async () => {
  api = await apiClient();
  await arrangeSameDayEarnings();
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

  it("takes limit 1-1000 (default 250) and clamps it to the plan's 250 rows with X-Limit-Clamped", async () => {
    const clamped = await earnings(`from=${today}&to=${addDays(today, 89)}&limit=1000`);
    expect(clamped.res.headers.get("X-Limit-Clamped")).toBe("true");
    expect(clamped.body.results.length).toBeLessThanOrEqual(250);
    const within = await earnings("limit=250");
    expect(within.res.headers.get("X-Limit-Clamped")).toBeNull();
    for (const bad of ["0", "-1", "2.5", "x"]) await expectError(await api.get(`/v1/earnings?limit=${bad}`), 400, "invalid_parameter");
  });
});
