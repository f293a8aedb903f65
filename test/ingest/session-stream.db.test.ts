import { describe, expect, it } from "vitest";
import type { DbnRecord } from "../../ingest/dbn";
import { consumeFeed } from "../../ingest/sources/opra/replay";
import { receiveTime } from "../../ingest/sources/opra/feed-files";
import { sessionRecords, type StreamMarket } from "../../devkit/generator/session-stream";
import { ingestDatabase } from "../support/ingest-database";
import { nanos } from "./opra-stream";

/** Tuesday 2026-03-03 14:30:20 UTC: the session's definitions; samples from 14:31:00. */
const START = nanos("2026-03-03T14:30:20Z");
const SIGMA = 0.3;
const strikes = [90, 95, 100, 105, 110];
const market: StreamMarket = {
  rate: 0.04,
  underlyings: new Map([["AAPL", { spot: 100, q: 0 }]]),
  contracts: strikes.flatMap((strike, i) =>
    (["call", "put"] as const).map((side, j) => ({
      instrumentId: 1 + i * 2 + j,
      contract: { root: "AAPL", expiration: "2026-04-17", strike, side },
      underlying: "AAPL",
      settlement: "pm" as const,
      sigma: SIGMA,
      openInterest: 100 * (i + 1),
    })),
  ),
};
const stream = () => [...sessionRecords(market, { start: START, tradesPerSecond: 0.5, minutes: 3 })];

describe("the generated session stream", () => {
  it("is a vendor session in receive-time order: definitions, open interest, then trades and a sample of every contract each whole minute", () => {
    const records = stream();
    expect(records.map(receiveTime)).toEqual([...records.map(receiveTime)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(records.slice(0, 10).every((r) => r.kind === "definition")).toBe(true);
    expect(records.slice(10, 20).every((r) => r.kind === "statistic")).toBe(true);
    const samples = records.filter((r) => r.kind === "cbbo");
    expect(samples).toHaveLength(30);
    expect([...new Set(samples.map((s) => new Date(Number(s.tsRecv / 1_000_000n)).toISOString()))]).toEqual([
      "2026-03-03T14:31:00.000Z",
      "2026-03-03T14:32:00.000Z",
      "2026-03-03T14:33:00.000Z",
    ]);
    const trades = records.filter((r): r is Extract<DbnRecord, { kind: "cmbp1" }> => r.kind === "cmbp1");
    expect(trades.length).toBeGreaterThan(20);
    for (const t of trades) {
      const { bidPx, askPx } = t.levels[0];
      expect(t.action).toBe("T");
      expect(t.price! >= bidPx! && t.price! <= askPx!).toBe(true);
    }
    // The same seed and start give the same records: a replay from any point repeats them.
    expect(stream()).toEqual(records);
  });

  it("sampling only chosen minutes, carries the same trades, and the same samples in those minutes", () => {
    const whole = stream();
    const chosen = new Set([nanos("2026-03-03T14:31:00Z"), nanos("2026-03-03T14:33:00Z")]);
    const some = [...sessionRecords(market, { start: START, tradesPerSecond: 0.5, minutes: 3, sampled: (minute) => chosen.has(minute) })];
    expect(some.filter((r) => r.kind !== "cbbo")).toEqual(whole.filter((r) => r.kind !== "cbbo"));
    const samples = whole.filter((r) => r.kind === "cbbo");
    expect(some.filter((r) => r.kind === "cbbo")).toEqual([...samples.slice(0, 10), ...samples.slice(20)]);
  });

  it("written by the pipeline, gives back the market it was made from: IV at the contracts' volatility, the spot, open interest and every trade", async () => {
    const db = await ingestDatabase();
    try {
      await db.typedQuery(
        `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2026-03-02T21:00:00Z', '2026-03-02', 0.04, 'seed')`,
      );
      const records = stream();
      const report = await consumeFeed(
        db,
        () => [
          {
            records: (async function* () {
              yield* records;
            })(),
          },
        ],
        { feed: "generated", log: () => undefined },
      );
      expect(report.records).toBe(records.length);
      const { rows } = await db.typedQuery(
        `select strike, side, iv, underlying_price, open_interest from option_quotes where strike between 95 and 105 order by strike, side`,
      );
      expect(rows).toHaveLength(6);
      for (const r of rows) {
        // Quotes a 4 % spread around the BSM value: the mid's IV is the contracts' volatility.
        expect(Math.abs(Number(r.iv) - SIGMA), `${r.strike} ${r.side}`).toBeLessThan(0.02);
        expect(Math.abs(Number(r.underlying_price) / 100 - 1)).toBeLessThan(0.02);
      }
      expect(rows.map((r) => r.open_interest)).toEqual([200, 200, 300, 300, 400, 400]);
      const prints = await db.typedQuery(`select count(*)::int as n from flow_prints`);
      expect(prints.rows[0]!.n).toBe(records.filter((r) => r.kind === "cmbp1").length);
    } finally {
      await db.close();
    }
  });
});
