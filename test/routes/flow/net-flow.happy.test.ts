import { beforeAll, describe, expect, it } from "vitest";
import { apiClient, type ApiClient } from "../../support/api-client";
import { addDays, etToday } from "../../support/market-db";
import { arrangePrints } from "../../support/flow-fixture";
import { retainedSessions } from "../../support/flow-sessions";
import { netFlowRoute } from "../../../src/routes/flow/net-flow";
import { sessionOpenAt } from "../../../src/domain/calendar";
import { contractBody } from "../../support/contract";
import { expectError } from "../../support/worker";

let api: ApiClient;
const net = async (query: string) => {
  const res = await api.get(`/v1/flow/net?${query}`);
  return { res, body: await contractBody(netFlowRoute, res) };
};

let newest: string;
let previous: string;
let sessions: string[];
/** Minute m of a session's open, UTC ISO; `s` seconds into it. */
let at: (session: string, m: number, s?: number) => string;

beforeAll(async () => {
  api = await apiClient();
  ({ newest, sessions } = await retainedSessions());
  previous = sessions.at(-2)!;
  at = (session, m, s = 0) => new Date(sessionOpenAt(session).getTime() + m * 60_000 + s * 1000).toISOString();
  // A small, hand-checked tape (premium = price × size × 100).
  await arrangePrints("NETX", [
    { ticker: "NETX", sessionDate: previous, executedAt: at(previous, 10), optionType: "call", side: "ask", price: 2, size: 100 }, // +20,000 call
    { ticker: "NETX", sessionDate: newest, executedAt: at(newest, 0, 5), optionType: "call", side: "ask", price: 2, size: 100 }, // +20,000 call, +100
    { ticker: "NETX", sessionDate: newest, executedAt: at(newest, 0, 40), optionType: "put", side: "bid", price: 1.5, size: 100 }, // −15,000 put, −100
    { ticker: "NETX", sessionDate: newest, executedAt: at(newest, 1, 10), optionType: "call", side: "mid", price: 3, size: 50 }, // volume only
    { ticker: "NETX", sessionDate: newest, executedAt: at(newest, 1, 20), optionType: "call", side: "bid", price: 1, size: 50 }, // 5,000: below the default minimum
    {
      ticker: "NETX",
      sessionDate: newest,
      executedAt: at(newest, 3, 0),
      optionType: "put",
      side: "ask",
      price: 4,
      size: 100,
      underlyingPrice: 51,
    }, // +40,000 put, +100
    {
      ticker: "NETX",
      sessionDate: newest,
      executedAt: at(newest, 3, 30),
      optionType: "call",
      side: "ask",
      price: 5,
      size: 100,
      printClass: "complex",
      underlyingPrice: 51.5,
    }, // multi-leg: volume only
    {
      ticker: "NETX",
      sessionDate: newest,
      executedAt: at(newest, 4, 0),
      optionType: "call",
      side: "ask",
      price: 10,
      size: 100,
      printClass: "canceled",
      underlyingPrice: 99,
    }, // never happened
  ]);
});

describe("GET /v1/flow/net", () => {
  it("adds up the newest session by default: one point per minute with prints, cumulative, checked by hand", async () => {
    const { body } = await net("symbol=NETX");
    expect(body).toEqual({
      ticker: "NETX",
      retentionDays: 7,
      mode: "cumulative",
      points: [
        { t: at(newest, 0), netCallPremium: 20_000, netPutPremium: -15_000, netVolume: 0 },
        { t: at(newest, 1), netCallPremium: 20_000, netPutPremium: -15_000, netVolume: 0 },
        { t: at(newest, 3), netCallPremium: 20_000, netPutPremium: 25_000, netVolume: 100 },
      ],
      summary: { volume: 450, ncp: 20_000, npp: 25_000, spot: 51.5 },
    });
  });

  it("aligns points on whole UTC minutes", async () => {
    const { body } = await net("ticker=NETX&minPremium=0");
    for (const p of body.points) expect(p.t).toMatch(/T\d\d:\d\d:00\.000Z$/);
    expect(new Set(body.points.map((p) => p.t)).size).toBe(body.points.length);
  });

  it("counts only prints at or above minPremium, in the points and in the summary's volume", async () => {
    const { body } = await net("symbol=NETX&minPremium=0");
    expect(body.points[1]).toEqual({ t: at(newest, 1), netCallPremium: 15_000, netPutPremium: -15_000, netVolume: -50 });
    expect(body.summary).toEqual({ volume: 500, ncp: 15_000, npp: 25_000, spot: 51.5 });
    const high = await net("symbol=NETX&minPremium=30000");
    expect(high.body.points).toEqual([{ t: at(newest, 3), netCallPremium: 0, netPutPremium: 40_000, netVolume: 100 }]);
    expect(high.body.summary.volume).toBe(200);
    for (const bad of ["-1", "ten", "1e4"])
      await expectError(await api.get(`/v1/flow/net?symbol=NETX&minPremium=${bad}`), 400, "invalid_parameter");
  });

  it("sums across sessions from `from`, with `to` defaulting to the `from` session and a future `to` cut back", async () => {
    const one = await net(`symbol=NETX&from=${previous}`);
    expect(one.body.points).toEqual([{ t: at(previous, 10), netCallPremium: 20_000, netPutPremium: 0, netVolume: 100 }]);
    const both = await net(`symbol=NETX&fromDate=${previous}&toDate=${addDays(etToday(), 30)}`);
    expect(both.body.points.map((p) => p.t)).toEqual([at(previous, 10), at(newest, 0), at(newest, 1), at(newest, 3)]);
    expect(both.body.summary).toMatchObject({ ncp: 40_000, npp: 25_000, volume: 550 });
    const toOnly = await net(`symbol=NETX&to=${previous}`);
    expect(toOnly.body).toEqual(one.body);
    expect((await net(`symbol=NETX&to=${addDays(etToday(), 3)}`)).body).toEqual((await net("symbol=NETX")).body);
  });

  it("answers an underlying without prints with no points and its stored spot", async () => {
    const { body } = await net("symbol=NOFLOW");
    expect(body).toEqual({
      ticker: "NOFLOW",
      retentionDays: 7,
      mode: "cumulative",
      points: [],
      summary: { volume: 0, ncp: 0, npp: 0, spot: null },
    });
    const spy = await net("symbol=SPY&minPremium=1000000000");
    expect(spy.body.points).toEqual([]);
    expect(spy.body.summary.spot).toEqual(expect.any(Number));
  });
});
