import { describe, expect, it } from "vitest";
import { addDays } from "../../src/domain/calendar";
import { ivChange1w, ivRank, type IvObservation } from "../../src/analytics/iv-rank";
import { vixCloses } from "../support/vix-closes";
import vectors from "../fixtures/volatility-gex-vectors.json";

/** VIX closes as a decimal "IV" series, oldest first. */
const closes: IvObservation[] = vixCloses.map((c) => ({ date: c.date, iv: c.close / 100 }));

type Vector = {
  vixClose: number;
  window252_low: number;
  window252_high: number;
  ivRank_252: number;
  ivPercentile_strictlyBelow_prior251: number;
  ivPercentile_lessOrEqual_incl_today_252: number;
  window365cal_n: number;
  window365cal_low: number;
  window365cal_high: number;
  ivRank_365cal: number;
};
const vixVectors = Object.entries(vectors.ivRankPercentile_VIXasIV).filter(([k]) => !k.startsWith("_")) as [string, Vector][];

/** n observations dated on consecutive days before asOf, oldest first. */
const daily = (asOf: string, values: number[]): IvObservation[] => values.map((iv, i) => ({ date: addDays(asOf, i - values.length), iv }));

describe("IV rank and percentile", () => {
  it("reproduces tastytrade's example: low 10%, high 20%, current 15% ranks 50", () => {
    const t = vectors.tastytradeIvRankExample;
    const history = daily("2026-03-02", [t.ivLow, ...Array<number>(20).fill(0.12), t.ivHigh]);
    expect(ivRank({ asOf: "2026-03-02", current: t.ivCurrent, history }).ivr).toBeCloseTo(t.ivRank, 12);
  });

  describe.each(vixVectors)("VIX close as IV on %s", (asOf, v) => {
    const current = closes.find((c) => c.date === asOf)!.iv;
    const prior = closes.filter((c) => c.date < asOf);

    it("over the last 252 sessions: the research's rank and strictly-below percentile of the 251 prior days", () => {
      expect(current * 100).toBeCloseTo(v.vixClose, 10);
      const r = ivRank({ asOf, current, history: prior.slice(-251) });
      expect(r.observations).toBe(251);
      expect(r.ivHigh52w! * 100).toBeCloseTo(v.window252_high, 10);
      expect(r.ivLow52w! * 100).toBeCloseTo(v.window252_low, 10);
      expect(r.ivr!).toBeCloseTo(v.ivRank_252, 4);
      expect(r.ivp!).toBeCloseTo(v.ivPercentile_strictlyBelow_prior251, 4);
    });

    it("over the 365-day window of the full history: the research's window, range and rank", () => {
      const r = ivRank({ asOf, current, history: closes });
      expect(r.observations + 1).toBe(v.window365cal_n);
      expect(r.ivHigh52w! * 100).toBeCloseTo(v.window365cal_high, 10);
      expect(r.ivLow52w! * 100).toBeCloseTo(v.window365cal_low, 10);
      expect(r.ivr!).toBeCloseTo(v.ivRank_365cal, 4);
      const start = addDays(asOf, -365);
      const window = prior.filter((c) => c.date > start);
      expect(r.ivp!).toBeCloseTo((100 * window.filter((c) => c.iv < current).length) / window.length, 12);
    });
  });

  it("ranks a new low at the 0th percentile, not at 1/252 as the ≤-including-today rule would", () => {
    const [, v] = vixVectors.find(([d]) => d === "2017-11-03")!;
    expect(v.ivPercentile_lessOrEqual_incl_today_252).toBeGreaterThan(0);
    const r = ivRank({ asOf: "2017-11-03", current: v.vixClose / 100, history: closes });
    expect(r).toMatchObject({ ivr: 0, ivp: 0 });
  });

  it("compares strictly: prior values equal to today's do not count as below", () => {
    const history = daily("2026-03-02", [...Array<number>(10).fill(0.2), ...Array<number>(10).fill(0.3), ...Array<number>(5).fill(0.25)]);
    expect(ivRank({ asOf: "2026-03-02", current: 0.25, history }).ivp).toBe(40);
  });

  it("window: dated after asOf − 365 days and before asOf; today's row and later rows are ignored", () => {
    const asOf = "2026-03-02";
    const base = daily(asOf, Array<number>(20).fill(0.2));
    const r = ivRank({
      asOf,
      current: 0.25,
      history: [
        ...base,
        { date: addDays(asOf, -365), iv: 0.9 }, // just outside
        { date: addDays(asOf, -364), iv: 0.1 }, // just inside
        { date: asOf, iv: 0.05 }, // today: the current value stands for it
        { date: addDays(asOf, 1), iv: 0.01 }, // the future
      ],
    });
    expect(r).toMatchObject({ observations: 21, ivHigh52w: 0.25, ivLow52w: 0.1 });
  });

  it("includes today in the high and low, so a new high ranks 100", () => {
    const r = ivRank({ asOf: "2026-03-02", current: 0.5, history: daily("2026-03-02", [0.2, 0.3, 0.4]) });
    expect(r).toMatchObject({ ivr: 100, ivHigh52w: 0.5, ivLow52w: 0.2, ivp: null });
  });

  it("percentile is null below 20 prior observations and defined at 20", () => {
    const values = Array.from({ length: 20 }, (_, i) => 0.1 + i / 100);
    expect(ivRank({ asOf: "2026-03-02", current: 0.2, history: daily("2026-03-02", values.slice(1)) }).ivp).toBeNull();
    expect(ivRank({ asOf: "2026-03-02", current: 0.2, history: daily("2026-03-02", values) }).ivp).toBe(50);
  });

  it("rank is null when the window's high equals its low, or there is no history", () => {
    expect(ivRank({ asOf: "2026-03-02", current: 0.2, history: daily("2026-03-02", Array<number>(30).fill(0.2)) })).toMatchObject({
      ivr: null,
      ivp: 0,
    });
    expect(ivRank({ asOf: "2026-03-02", current: 0.2, history: [] })).toEqual({
      ivr: null,
      ivp: null,
      ivHigh52w: 0.2,
      ivLow52w: 0.2,
      observations: 0,
    });
  });

  it("without a current IV: no rank or percentile, the range comes from history alone; unusable values are skipped", () => {
    const history = [
      ...daily("2026-03-02", Array<number>(25).fill(0.3)),
      { date: "2026-02-01", iv: 0 },
      { date: "2026-02-02", iv: Number.NaN },
    ];
    expect(ivRank({ asOf: "2026-03-02", current: null, history })).toEqual({
      ivr: null,
      ivp: null,
      ivHigh52w: 0.3,
      ivLow52w: 0.3,
      observations: 25,
    });
    expect(ivRank({ asOf: "2026-03-02", current: null, history: [] })).toMatchObject({ ivHigh52w: null, ivLow52w: null });
  });
});

describe("one-week IV change", () => {
  it("is today's VIX minus the close a week earlier (2022-06-10 vs 2022-06-03)", () => {
    const week = closes.find((c) => c.date === "2022-06-03")!.iv;
    expect(ivChange1w({ asOf: "2022-06-10", current: 0.2775, history: closes })).toBeCloseTo(0.2775 - week, 15);
  });

  it("falls back to the latest session before the date a week ago, but not beyond 13 days", () => {
    const asOf = "2026-07-10";
    const h = (days: number, iv: number) => ({ date: addDays(asOf, -days), iv });
    expect(ivChange1w({ asOf, current: 0.3, history: [h(6, 0.1), h(7, 0.25), h(8, 0.2)] })).toBeCloseTo(0.05, 15);
    expect(ivChange1w({ asOf, current: 0.3, history: [h(6, 0.1), h(9, 0.2), h(13, 0.15)] })).toBeCloseTo(0.1, 15);
    expect(ivChange1w({ asOf, current: 0.3, history: [h(6, 0.1), h(14, 0.2)] })).toBeNull();
    expect(ivChange1w({ asOf, current: null, history: [h(7, 0.2)] })).toBeNull();
  });
});
