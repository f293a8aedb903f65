import { describe, expect, it } from "vitest";
import { healthRoute } from "../../../src/routes/meta/health";
import { contractBody } from "../../support/contract";
import { call } from "../../support/worker";

describe("/health", () => {
  it("answers ok with the service version", async () => {
    expect(await contractBody(healthRoute, await call("/health"))).toEqual({
      status: "ok",
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
  });
});
