import { describe, expect, it } from "vitest";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src";
import type { Bindings } from "../../src/env";
import { addDays, etToday, marketSql } from "../support/market-db";
import { TEST_CLOCK } from "../support/test-clock";
import { arrangePrints } from "../support/flow-fixture";
import { flowPartitionName, flowPartitionsSql } from "../../src/market/flow-partitions";
import { previousSessions, sessionOnOrAfter, sessionOnOrBefore, sessionOpenAt } from "../../src/domain/calendar";
import { bearer, newAccount } from "../support/accounts";
import { call, testEnv } from "../support/worker";

const countOf = async (ticker: string) =>
  ((await marketSql().query("select count(*)::int as n from flow_prints where ticker = $1", [ticker])) as [{ n: number }])[0].n;

describe("flow retention (cron trigger)", () => {
  it("prunes prints of sessions before today − 7 days in scheduled() — partitions dropped, the default partition's rows deleted — keeping every session a `from` of today − 7 reaches and serving reads meanwhile", async () => {
    // The earliest `from` served is today − 7 days; its window starts at the first session on or after it.
    const earliest = addDays(etToday(), -7);
    const oldest = sessionOnOrAfter(earliest);
    const newest = sessionOnOrBefore(etToday());
    // The three sessions before it. The newest is still among the 7 sessions before today's (the seeded market's oldest,
    // in its own partition) and goes all the same; the oldest gets a partition here, the middle one's print lands in
    // the default partition.
    const expired = previousSessions(addDays(earliest, -1), 3);
    const print = (session: string) => ({
      ticker: "RETX",
      sessionDate: session,
      executedAt: sessionOpenAt(session).toISOString(),
      price: 2,
      size: 100,
    });
    await marketSql().query(flowPartitionsSql([expired[0]!]));
    await arrangePrints("RETX", [...expired.map(print), print(oldest), print(newest)]);
    expect(await countOf("RETX")).toBe(5);
    const partitionOf = async (session: string) =>
      (
        (await marketSql().query(
          "select tableoid::regclass::text as p from flow_prints where ticker = 'RETX' and session_date = $1::date",
          [session],
        )) as { p: string }[]
      )[0]?.p;
    expect(await partitionOf(expired[0]!)).toBe(flowPartitionName(expired[0]!));
    expect(await partitionOf(expired[1]!)).toBe("flow_prints_other");
    expect(await partitionOf(expired[2]!)).toBe(flowPartitionName(expired[2]!));

    const auth = bearer((await newAccount()).keys[0]!.key);
    const ctx = createExecutionContext();
    // The cron fires at the Worker's pinned clock, the instant the 7 days count back from.
    const scheduledTime = Date.parse(TEST_CLOCK);
    await worker.scheduled!(createScheduledController({ scheduledTime, cron: "10 * * * *" }), testEnv as Bindings, ctx);
    // Reads go on while the job runs.
    const during = call(`/v1/flow?symbol=RETX&from=${oldest}&minPremium=0`, auth);
    await waitOnExecutionContext(ctx);
    expect((await during).status).toBe(200);

    expect(await countOf("RETX")).toBe(2);
    const left = (await marketSql().query("select session_date::text as d from flow_prints where ticker = 'RETX' order by 1")) as {
      d: string;
    }[];
    expect(left.map((r) => r.d)).toEqual([oldest, newest]);
    const older = (await marketSql().query("select count(*)::int as n from flow_prints where session_date < $1::date", [earliest])) as [
      { n: number },
    ];
    expect(older[0].n).toBe(0);
    for (const session of [expired[0]!, expired[2]!]) {
      const dropped = (await marketSql().query("select to_regclass($1)::text as t", [flowPartitionName(session)])) as [
        { t: string | null },
      ];
      expect(dropped[0].t, session).toBeNull();
    }

    // Idempotent: a second run finds nothing to delete.
    const again = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime }), testEnv as Bindings, again);
    await waitOnExecutionContext(again);
    expect(await countOf("RETX")).toBe(2);
  });
});
