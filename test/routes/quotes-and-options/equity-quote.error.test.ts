import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { createTestUnderlying, marketSql } from "../../support/market-db";
import { expectError, testEnv } from "../../support/worker";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
  // One misbehaving symbol without any stored quote: nothing to fall back on.
  await createTestUnderlying("NOFALL", 1, [], []);
  await marketSql().query("delete from equity_quotes where symbol = 'NOFALL'");
});

describe("GET /v1/quotes/{symbol}", () => {
  it("answers 502 upstream_error only when the vendor fails and nothing is stored, without leaking vendor details", async () => {
    const res = await api.get("/v1/quotes/NOFALL");
    const body = await expectError(res, 502, "upstream_error");
    expect(JSON.stringify(body)).not.toMatch(/finnhub|token|127\.0\.0\.1|HTTP/i);
    expect(JSON.stringify(body)).not.toContain(testEnv.QUOTE_PROVIDER_TOKEN!);
  });

  it("answers 400 for malformed symbols and 404 for unknown ones", async () => {
    for (const bad of ["aapl", "TOOLONGSYMB", "AA%20PL", "AA_PL", "%F0%9F%92%A9"]) {
      await expectError(await api.get(`/v1/quotes/${bad}`), 400, "invalid_parameter");
    }
    expect((await api.get("/v1/quotes/BRK.B")).status).toBe(404);
    await expectError(await api.get("/v1/quotes/ZZZZ"), 404, "not_found");
    await expectError(await api.get("/v1/quotes/"), 400, "missing_symbol");
  });
});
