import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { expectError } from "../../support/worker";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/options/quotes/{optionSymbol}", () => {
  it("answers 400 invalid_parameter for a malformed symbol, 404 for an unknown one, 400 missing_symbol when absent", async () => {
    for (const bad of ["AAPL", "aapl250117c00175000", "AAPL251317C00175000", "%20%20%20", "A".repeat(40)]) {
      await expectError(await api.get(`/v1/options/quotes/${bad}`), 400, "invalid_parameter");
    }
    await expectError(await api.get("/v1/options/quotes/AAPL200117C00175000"), 404, "not_found");
    await expectError(await api.get("/v1/options/quotes/"), 400, "missing_symbol");
  });
});
