import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { expectError } from "../../support/worker";

let api: ApiClient;
beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/gex/{symbol}", () => {
  it("refuses bad windows with the spec's codes", async () => {
    await expectError(await api.get("/v1/gex/SPY?maxDte=731"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY?zeroDte=true&maxDte=5"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY?zeroDte=maybe"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY?minDte=-1"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY?minDte=10&maxDte=5"), 400, "invalid_range");
    await expectError(await api.get("/v1/gex/SPY?minDte=1&dteMin=2"), 400, "invalid_parameter");
    const body = await expectError(await api.get("/v1/gex/SPY?maxDte=abc"), 400, "invalid_parameter");
    expect(body.message).toContain("maxDte");
  });

  it("answers 404 for an unknown symbol, 400 for a malformed or missing one", async () => {
    await expectError(await api.get("/v1/gex/NOPEX"), 404, "not_found");
    await expectError(await api.get("/v1/gex/spy!"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/"), 400, "missing_symbol");
  });
});
