import { describe, expect, it } from "vitest";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../src";
import type { Bindings } from "../../src/env";
import { addDays, etToday, marketSql } from "../support/market-db";
import { TEST_CLOCK } from "../support/test-clock";
import { arrangePrints } from "../support/flow-fixture";
import { flowPartitionName, flowPartitionsSql } from "../../src/market/flow-partitions";
import { previousSessions, sessionOnOrBefore, sessionOpenAt } from "../../src/domain/calendar";
import { bearer, newAccount } from "../support/accounts";
import { call, testEnv } from "../support/worker";

const countOf = async (ticker: string) =>
  ((await marketSql().query("select count(*)::int as n from flow_prints where ticker = $1", [ticker])) as [{ n: number }])[0].n;

describe("flow retention (cron trigger)", () => {
  it("prunes prints older than the 7 retained sessions in scheduled() — partitions dropped, the default partition's rows deleted — keeping the rest and serving reads meanwhile", async () => {
    const kept = previousSessions(sessionOnOrBefore(etToday()), 7);
    const oldest = kept[0]!;
    const expired = previousSessions(addDays(oldest, -1), 2);
    const print = (session: string) => ({
      ticker: "RETX",
      sessionDate: session,
      executedAt: sessionOpenAt(session).toISOString(),
      price: 2,
      size: 100,
    });
    // The older expired session has a partition of its own; the other's print lands in the default partition.
    await marketSql().query(flowPartitionsSql([expired[0]!]));
    await arrangePrints("RETX", [...expired.map(print), print(oldest), print(kept[6]!)]);
    expect(await countOf("RETX")).toBe(4);
    const partitionOf = async (session: string) =>
      (
        (await marketSql().query(
          "select tableoid::regclass::text as p from flow_prints where ticker = 'RETX' and session_date = $1::date",
          [session],
        )) as { p: string }[]
      )[0]?.p;
    expect(await partitionOf(expired[0]!)).toBe(flowPartitionName(expired[0]!));
    expect(await partitionOf(expired[1]!)).toBe("flow_prints_other");

    const auth = bearer((await newAccount()).keys[0]!.key);
    const ctx = createExecutionContext();
    // The cron fires at the Worker's pinned clock, the instant the retained sessions count back from.
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
    expect(left.map((r) => r.d)).toEqual([oldest, kept[6]]);
    const older = (await marketSql().query("select count(*)::int as n from flow_prints where session_date < $1::date", [oldest])) as [
      { n: number },
    ];
    expect(older[0].n).toBe(0);
    const dropped = (await marketSql().query("select to_regclass($1)::text as t", [flowPartitionName(expired[0]!)])) as [
      { t: string | null },
    ];
    expect(dropped[0].t).toBeNull();

    // Idempotent: a second run finds nothing to delete.
    const again = createExecutionContext();
    await worker.scheduled!(createScheduledController({ scheduledTime }), testEnv as Bindings, again);
    await waitOnExecutionContext(again);
    expect(await countOf("RETX")).toBe(2);
  });
});
