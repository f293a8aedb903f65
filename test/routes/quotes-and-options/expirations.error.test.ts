import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { expectError } from "../../support/worker";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/expirations/{symbol}", () => {
  it("answers 404 for unknown symbols, 400 for malformed or missing ones", async () => {
    await expectError(await api.get("/v1/expirations/NOPE"), 404, "not_found");
    await expectError(await api.get("/v1/expirations/sp%20y"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/expirations/"), 400, "missing_symbol");
  });
});
