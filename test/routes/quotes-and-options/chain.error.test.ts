import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { chainReader } from "../../support/chain-fixture";
import { expectError } from "../../support/worker";

let api: ApiClient;
const chain = chainReader(() => api);

beforeAll(async () => {
  api = await apiClient();
});

describe("GET /v1/chain/{symbol}", () => {
  it("refuses forged, corrupted and foreign cursors with 400 invalid_parameter", async () => {
    const { body } = await chain("limit=10");
    const cursor = body.nextCursor!;
    const [payload, mac] = cursor.split(".");
    // The real cursor's shape with another position, signed with the real cursor's MAC.
    const forgedPayload = btoa(JSON.stringify([[["2099-01-01", 1, "call", "SPY"], 1], "x"])).replace(/=+$/, "");
    for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${mac!.slice(0, -2)}AA`, "garbage", `${payload}.${mac}.x`, "%%%"]) {
      await expectError(await api.get(`/v1/chain/SPY?limit=10&cursor=${encodeURIComponent(bad)}`), 400, "invalid_parameter");
    }
    // A cursor continues only the query it came from.
    await expectError(await api.get(`/v1/chain/SPY?limit=10&side=put&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
    await expectError(await api.get(`/v1/chain/QQQ?limit=10&cursor=${encodeURIComponent(cursor)}`), 400, "invalid_parameter");
  });

  it("answers 400 for bad values and ranges, 404 for unknown symbols", async () => {
    await expectError(await api.get("/v1/chain/SPY?strikeMin=600&strikeMax=500"), 400, "invalid_range");
    for (const q of [
      "limit=0",
      "limit=abc",
      "limit=2.5",
      "strikeMin=abc",
      "strikeMin=0x10",
      "minOI=-1",
      "side=both",
      "expiration=2026-02-30",
      "expiration=tomorrow",
      "maxDte=1e3",
    ]) {
      await expectError(await api.get(`/v1/chain/SPY?${q}`), 400, "invalid_parameter");
    }
    await expectError(await api.get("/v1/chain/spy"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/TOOLONGSYMBOL"), 400, "invalid_parameter");
    await expectError(await api.get("/v1/chain/ZZZZ"), 404, "not_found");
  });

  it("accepts expiration dates of the years 0001-9999 only: year 0000 is a 400 naming the parameter, not a 500", async () => {
    for (const date of ["0000-01-01", "0000-12-31", "0000-02-29"]) {
      const error = await expectError(await api.get(`/v1/chain/SPY?expiration=${date}`), 400, "invalid_parameter");
      expect(error.message).toMatch(/'expiration'.*0001-9999/);
    }
    for (const date of ["0001-01-01", "9999-12-31"]) {
      const { body } = await chain(`expiration=${date}`);
      expect(body.contracts).toEqual([]);
    }
  });
});
