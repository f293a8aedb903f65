import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, etToday } from "../../support/market-db";
import { retainedSessions } from "../../support/flow-sessions";
import { expectError } from "../../support/worker";

let api: ApiClient;
let newest: string;
let previous: string;

beforeAll(async () => {
  api = await apiClient();
  const { sessions, ...feed } = await retainedSessions();
  newest = feed.newest;
  previous = sessions.at(-2)!;
});

describe("GET /v1/flow/net", () => {
  it("requires a symbol (400 missing_symbol) and refuses malformed ones and conflicting aliases", async () => {
    await expectError(await api.get("/v1/flow/net"), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?symbol="), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?minPremium=0"), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?symbol=net$x"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/flow/net?symbol=NETX&ticker=SPY"), 400, "invalid_parameter");
  });

  it("refuses `from` after the newest session, more than 7 days before today, or after `to`", async () => {
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${addDays(newest, 1)}`), 400, "out_of_range");
    // Today − 8 is a session the seeded market holds (the 7th before today's): out of the 7 days all the same.
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${addDays(etToday(), -8)}`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${newest}&to=${previous}`), 400, "invalid_range");
  });
});
