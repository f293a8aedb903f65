import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { arrangeSameDayEarnings, calendarReaders } from "../../support/calendar-fixture";
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
  it("refuses from after to and windows over 90 days (400 invalid_range)", async () => {
    await expectError(await api.get(`/v1/earnings?from=${addDays(today, 5)}&to=${addDays(today, 4)}`), 400, "invalid_range");
    await expectError(await api.get(`/v1/earnings?from=${today}&to=${addDays(today, 90)}`), 400, "invalid_range");
    await expectError(await api.get(`/v1/dividends?to=${addDays(today, 200)}`), 400, "invalid_range");
    // A `to` in the past with no `from`: the window is that one day, not an error.
    const past = await earnings(`to=${addDays(today, -3)}`);
    expect([past.body.from, past.body.to]).toEqual([addDays(today, -3), addDays(today, -3)]);
  });

  it("refuses forged cursors and cursors of another query (400 invalid_parameter)", async () => {
    const { body } = await earnings("limit=1");
    const cursor = body.nextCursor!;
    const forged = `${cursor.slice(0, -2)}${cursor.endsWith("AA") ? "BB" : "AA"}`;
    await expectError(await api.get(`/v1/earnings?limit=1&cursor=${encodeURIComponent(forged)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/earnings?limit=2&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/dividends?limit=1&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
  });
});
