import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { marketSql } from "../../support/market-db";
import { usageRoute } from "../../../src/routes/account/usage";
import { batchQuotesRoute } from "../../../src/routes/quotes-and-options/batch-quotes";
import { contractBody } from "../../support/contract";

let api: ApiClient;

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/options/quotes?symbols=", () => {
  it("returns each distinct contract once and lists unknown symbols as missing, counting one request", async () => {
    const rows = await marketSql().query(
      "select option_symbol, root from option_quotes where underlying = 'QQQ' order by option_symbol limit 3",
    );
    const [a, b, c] = rows.map((r) => r.option_symbol as string);
    const paddedA = rows[0]!.root.padEnd(6, " ") + a!.slice((rows[0]!.root as string).length);
    const unknown = "QQQ200117C00100000";
    // The ET-day count, not X-RateLimit-Remaining: the bucket may refill a token between two calls.
    const today = async () => (await api.read(usageRoute, "/v1/usage")).requests!.today;
    const before = await today();
    const res = await api.get(`/v1/options/quotes?symbols=${[a, b, c, a, encodeURIComponent(paddedA), unknown].join(",")}`);
    expect(res.status).toBe(200);
    expect(await today()).toBe(before + 2);
    const body = await contractBody(batchQuotesRoute, res);
    expect(body.quotes.map((q) => q.optionSymbol).sort()).toEqual([a, b, c].sort());
    expect(body.missing).toEqual([unknown]);
  });
});
