import { describe, expect, it } from "vitest";
import { PLANS } from "../../../src/domain/plans";
import { plansRoute } from "../../../src/routes/meta/plans";
import { contractBody } from "../../support/contract";
import { call } from "../../support/worker";

describe("/public/plans", () => {
  it("lists the trial and Basic with the spec's identical limits", async () => {
    const res = await call("/public/plans");
    const body = await contractBody(plansRoute, res);
    expect(body.plans.map((p) => p.id)).toEqual(["trial", "basic"]);
    expect(body.plans[0]?.trialDays).toBe(14);
    for (const plan of body.plans) {
      expect(plan.limits).toMatchObject({ requestsPerMinute: 300, concurrency: 5, maxRows: 250, historyDays: 7, activeKeys: 5 });
    }
    const listed = PLANS.filter((p) => p.listed).map(({ listed: _listed, ...plan }) => plan);
    expect(body).toEqual({ plans: JSON.parse(JSON.stringify(listed)) });
  });
});
