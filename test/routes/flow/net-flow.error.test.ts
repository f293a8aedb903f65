import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays } from "../../support/market-db";
import { retainedSessions } from "../../support/flow-sessions";
import { expectError } from "../../support/worker";

let api: ApiClient;
let newest: string;
let previous: string;
let sessions: string[];

beforeAll(async () => {
  api = await apiClient();
  ({ newest, sessions } = await retainedSessions());
  previous = sessions[5]!;
});

describe("GET /v1/flow/net", () => {
  it("requires a symbol (400 missing_symbol) and refuses malformed ones and conflicting aliases", async () => {
    await expectError(await api.get("/v1/flow/net"), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?symbol="), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?minPremium=0"), 400, "missing_symbol");
    await expectError(await api.get("/v1/flow/net?symbol=net$x"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/flow/net?symbol=NETX&ticker=SPY"), 400, "invalid_parameter");
  });

  it("refuses `from` after the newest session, older than the retained sessions, or after `to`", async () => {
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${addDays(newest, 1)}`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${addDays(sessions[0]!, -1)}`), 400, "out_of_range");
    await expectError(await api.get(`/v1/flow/net?symbol=NETX&from=${newest}&to=${previous}`), 400, "invalid_range");
  });
});
