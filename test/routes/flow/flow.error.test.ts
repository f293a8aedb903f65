import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, etToday } from "../../support/market-db";
import { retainedSessions } from "../../support/flow-sessions";
import { callWith, expectError, testEnv } from "../../support/worker";

let api: ApiClient;
let newest: string;
/** The retained sessions, oldest first (the newest is the feed's). */
let sessions: string[];

async function outage(action: "slow" | "start"): Promise<void> {
  expect((await fetch(`${testEnv.TEST_OUTAGE_CONTROL}/${action}`, { method: "POST" })).status).toBe(204);
}

beforeAll(async () => {
  api = await apiClient();
  ({ newest, sessions } = await retainedSessions());
});

describe("GET /v1/flow", () => {
  it("refuses a `from` more than 7 days before today or after the newest session, and `from` after `to`", async () => {
    // Today − 8 is a session the seeded market holds (the 7th before today's): out of the 7 days all the same.
    const beforeRetention = addDays(etToday(), -8);
    const outOfRange = await expectError(await api.get(`/v1/flow?from=${beforeRetention}&symbol=SPY`), 400, "out_of_range");
    expect(outOfRange.message).toMatch(/retention/);
    await expectError(await api.get(`/v1/flow?fromDate=2020-01-02`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow?to=${beforeRetention}`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow?from=${addDays(newest, 1)}&symbol=SPY`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow?from=${newest}&to=${sessions.at(-2)}`), 400, "invalid_range");
    await expectError(await api.get(`/v1/flow?from=${newest}&fromDate=${sessions.at(-2)}`), 400, "invalid_parameter");
    for (const bad of ["from=yesterday", "to=2026-02-31", "toDate=20261120"]) {
      await expectError(await api.get(`/v1/flow?${bad}`), 400, "invalid_parameter");
    }
  });

  it("answers 503 query_timeout with Retry-After when the query outlives the time budget, not service_unavailable", async () => {
    const market = { MARKET_DATABASE_URL: testEnv.TEST_OUTAGE_DATABASE_URL, QUERY_TIMEOUT_MS: "300" };
    expect((await callWith(market, "/v1/flow?symbol=SPY", api.auth)).status).toBe(200);
    await outage("slow");
    try {
      const started = Date.now();
      for (const path of ["/v1/flow?symbol=SPY", "/v1/flow/net?symbol=SPY"]) {
        const res = await callWith(market, path, api.auth);
        const body = await expectError(res, 503, "query_timeout");
        expect(res.headers.get("Retry-After"), path).toBe("2");
        expect(JSON.stringify(body), path).not.toMatch(/flow_prints|select|abort|127\.0\.0\.1/i);
      }
      // Each answered at its deadline, not when the database did.
      expect(Date.now() - started).toBeLessThan(1_800);
    } finally {
      await outage("start");
    }
    expect((await callWith(market, "/v1/flow?symbol=SPY", api.auth)).status).toBe(200);
  });
});
