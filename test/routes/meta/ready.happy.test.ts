import { describe, expect, it } from "vitest";
import { readyRoute } from "../../../src/routes/meta/ready";
import { contractBody } from "../../support/contract";
import { call } from "../../support/worker";

describe("/ready", () => {
  it("is ready when both databases answer through the Neon protocol", async () => {
    const body = await contractBody(readyRoute, await call("/ready"));
    expect(body.status).toBe("ready");
    expect(body.checks.market).toMatchObject({ ok: true });
    expect(body.checks.control).toMatchObject({ ok: true });
  });
});
