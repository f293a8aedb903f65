import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { calendarReaders, storedKeys } from "../../support/calendar-fixture";
import { addDays, etToday } from "../../support/market-db";
import { expectError } from "../../support/worker";

let api: ApiClient;
const { dividends } = calendarReaders(() => api);
const today = etToday();

beforeAll(async () => {
  api = await apiClient();
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
