import { describe, expect, it } from "vitest";
import { readyRoute } from "../../../src/routes/meta/ready";
import { contractBody } from "../../support/contract";
import { marketSql } from "../../support/market-db";
import { call } from "../../support/worker";
import { advanceClock } from "../../support/clock";

describe("/ready", () => {
  it("is ready when both databases answer through the Neon protocol", async () => {
    const body = await contractBody(readyRoute, await call("/ready"));
    expect(body.status).toBe("ready");
    expect(body.checks.market).toMatchObject({ ok: true });
    expect(body.checks.control).toMatchObject({ ok: true });
  });

  it("reports each ingested schema's position and lag, and stays ready however far behind", async () => {
    const now = Date.now();
    const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
    await marketSql().query(
      `insert into feed_positions (feed, schema, ts_recv) values ('ready-test', 'tcbbo', $1), ('ready-test', 'statistics', $2)
       on conflict (feed, schema) do update set ts_recv = excluded.ts_recv`,
      [ns(now - 4_000), ns(now - 30 * 3_600_000)],
    );
    try {
      // Past the 2 s for which an isolate reuses its probes.
      advanceClock(2_100);
      const body = await contractBody(readyRoute, await call("/ready"));
      expect(body.status).toBe("ready");
      const mine = body.feeds.filter((f) => f.feed === "ready-test");
      expect(mine.map((f) => [f.schema, f.position])).toEqual([
        ["statistics", new Date(now - 30 * 3_600_000).toISOString()],
        ["tcbbo", new Date(now - 4_000).toISOString()],
      ]);
      expect(mine[0]!.lagSeconds).toBeGreaterThan(30 * 3_600);
      expect(mine[1]!.lagSeconds).toBeGreaterThanOrEqual(4);
      expect(mine[1]!.lagSeconds).toBeLessThan(60);
    } finally {
      await marketSql().query(`delete from feed_positions where feed = 'ready-test'`);
    }
  });
});
