import { beforeAll, describe, expect, it } from "vitest";
import { bearer, newAccount } from "../support/accounts";
import { sampleRequests } from "../support/sample-requests";
import { call, expectError } from "../support/worker";

const protectedRoutes = sampleRequests((r) => r.access === "key" || r.access === "entitled");

let active: string;
let canceled: string;

beforeAll(async () => {
  active = (await newAccount({ status: "active" })).keys[0]!.key;
  canceled = (await newAccount({ status: "canceled" })).keys[0]!.key;
});

describe("the access matrix every protected route passes", () => {
  it("covers every key and entitled route of the spec, and no other", () => {
    // The spec's endpoints behind an API key, written here apart from the route table.
    expect(protectedRoutes.map((r) => r.route.operationId).sort()).toEqual(
      [
        "verifyKey",
        "getUsage",
        "getEquityQuote",
        "getOptionQuote",
        "getOptionQuotes",
        "getExpirations",
        "getChain",
        "screenContracts",
        "getEarnings",
        "getDividends",
        "getIvContext",
        "getTopIv",
        "getTopIvr",
        "getGex",
        "getGexHeatmap",
        "getFlow",
        "getNetFlow",
      ].sort(),
    );
  });

  for (const { route, path, init } of protectedRoutes) {
    it(`${route.method.toUpperCase()} ${route.path}`, async () => {
      const missing = await call(path, init());
      await expectError(missing, 401, "missing_api_key");
      expect(missing.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      await expectError(await call(path, init(bearer("ods_live_short"))), 401, "invalid_api_key");
      await expectError(await call(path, init(bearer("ods_sess_abc123"))), 403, "wrong_credential_type");
      await expectError(await call(`${path}${path.includes("?") ? "&" : "?"}api_key=x`, init(bearer(active))), 400, "credentials_in_query");
      const inactive = await call(path, init(bearer(canceled)));
      if (route.access === "entitled") await expectError(inactive, 403, "subscription_inactive");
      else expect(inactive.status).toBe(200);
      const ok = await call(path, init(bearer(active)));
      expect(ok.status, await ok.clone().text()).toBe(200);
      expect(ok.headers.get("X-RateLimit-Limit")).toBe("300");
    });
  }
});
