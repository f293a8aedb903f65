import { beforeAll, describe, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { expectError } from "../../support/worker";

let api: ApiClient;
beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/gex/{symbol}/heatmap", () => {
  it("refuses a bad metric, an inverted band and bad DTE values", async () => {
    await expectError(await api.get("/v1/gex/SPY/heatmap?metric=gamma"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY/heatmap?strikeMin=500&strikeMax=400"), 400, "invalid_range");
    await expectError(await api.get("/v1/gex/SPY/heatmap?strikeMin=-5"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY/heatmap?maxDte=800"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/SPY/heatmap?zeroDte=true&maxDte=3"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/gex/NOPEX/heatmap"), 404, "not_found");
  });
});
