import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { todayInNewYork } from "../../src/domain/calendar";
import { bearer } from "../support/accounts";
import { page, signedInAccount } from "../support/dashboard";
import { controlSql } from "../support/market-db";
import { call, testEnv } from "../support/worker";

const recorded = async (accountId: number) =>
  (await controlSql().query("select date::text as date, requests::int as requests from usage_daily where account_id = $1", [
    accountId,
  ])) as {
    date: string;
    requests: number;
  }[];

describe("usage_daily", () => {
  it("is written by the account's Durable Object in batches, never on the request path, as absolute ET-day counts", async () => {
    const user = await signedInAccount({ status: "active", keys: 1 });
    const key = user.keys[0]!.key;
    for (let i = 0; i < 3; i++) expect((await call("/v1/usage", bearer(key))).status).toBe(200);
    expect(await recorded(user.id)).toEqual([]);

    const limiter = testEnv.ACCOUNT_LIMITER.getByName(String(user.id));
    expect(await runDurableObjectAlarm(limiter)).toBe(true);
    const today = todayInNewYork();
    expect(await recorded(user.id)).toEqual([{ date: today, requests: 3 }]);

    for (let i = 0; i < 2; i++) await call("/v1/usage", bearer(key));
    await runDurableObjectAlarm(limiter);
    // The day's count, not a sum of batches: a repeated write never counts twice.
    expect(await recorded(user.id)).toEqual([{ date: today, requests: 5 }]);
    expect(await runDurableObjectAlarm(limiter)).toBe(false);
    expect(await recorded(user.id)).toEqual([{ date: today, requests: 5 }]);
  });

  it("never lowers a recorded day", async () => {
    const user = await signedInAccount({ status: "active", keys: 1 });
    const today = todayInNewYork();
    await controlSql().query("insert into usage_daily (account_id, date, requests) values ($1, $2, 100)", [user.id, today]);
    await call("/v1/usage", bearer(user.keys[0]!.key));
    await runDurableObjectAlarm(testEnv.ACCOUNT_LIMITER.getByName(String(user.id)));
    expect(await recorded(user.id)).toEqual([{ date: today, requests: 100 }]);
  });

  it("is drawn on the overview: 30 days, recorded days and today's live count", async () => {
    const user = await signedInAccount({ status: "active", keys: 1 });
    const [y, m, d] = todayInNewYork().split("-").map(Number) as [number, number, number];
    const tenDaysAgo = new Date(Date.UTC(y, m - 1, d - 10)).toISOString().slice(0, 10);
    await controlSql().query("insert into usage_daily (account_id, date, requests) values ($1, $2, 42)", [user.id, tenDaysAgo]);
    for (let i = 0; i < 2; i++) await call("/v1/usage", bearer(user.keys[0]!.key));
    const html = await (await page(user, "/dashboard")).text();
    expect(html.match(/<rect /g)).toHaveLength(30);
    expect(html).toContain(`${tenDaysAgo}: 42`);
    expect(html).toContain(`${todayInNewYork()}: 2`);
    expect(html).toMatch(/Requests today \(US Eastern day\)<\/dt>\s*<dd>2<\/dd>/);
    expect(html).toContain("44 in all");
  });
});
