import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { marketSql } from "../../support/market-db";
import { batchQuotesRoute } from "../../../src/routes/quotes-and-options/batch-quotes";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/options/quotes?symbols=", () => {
  it("allows 20 distinct symbols and refuses 21 with too_many_symbols", async () => {
    const rows = await marketSql().query("select option_symbol from option_quotes where underlying = 'SPY' limit 21");
    const symbols = rows.map((r) => r.option_symbol as string);
    const twenty = await api.get(`/v1/options/quotes?symbols=${symbols.slice(0, 20).join(",")}`);
    expect((await contractBody(batchQuotesRoute, twenty)).quotes).toHaveLength(20);
    await expectError(await api.get(`/v1/options/quotes?symbols=${symbols.join(",")}`), 400, "too_many_symbols");
    // Duplicates do not count twice.
    expect((await api.get(`/v1/options/quotes?symbols=${[...symbols.slice(0, 20), symbols[0]].join(",")}`)).status).toBe(200);
  });

  it("requires symbols and rejects malformed ones", async () => {
    await expectError(await api.get("/v1/options/quotes"), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols="), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols=,,"), 400, "missing_symbol");
    await expectError(await api.get("/v1/options/quotes?symbols=SPY,QQQ"), 400, "invalid_parameter");
  });
});
