import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { expectError } from "../../support/worker";

let api: ApiClient;
beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/iv/{symbol}", () => {
  it("answers 404 for an unknown symbol, 400 for a malformed or missing one", async () => {
    await expectError(await api.get("/v1/iv/NOPEX"), 404, "not_found");
    await expectError(await api.get("/v1/iv/bad$"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/iv/"), 400, "missing_symbol");
  });
});
