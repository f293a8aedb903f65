import { describe, expect, it } from "vitest";
import { flowWindow, resolveBound, retentionStart, sessionsBetween, type FlowWindowRequest } from "../../src/domain/flow-window";

// Monday after Thanksgiving 2026 (Thursday 26th closed, Friday 27th an early close).
const today = "2026-11-30";
const marketWide: Omit<FlowWindowRequest, "from" | "to"> = { fromOnlyEndsAt: "fromSession", maxSessions: 3, historyDays: 7, today };
const scoped: Omit<FlowWindowRequest, "from" | "to"> = { fromOnlyEndsAt: "newest", historyDays: 7, today };

describe("flow windows", () => {
  it("retain 7 calendar days back from today's ET date, not 7 trading sessions", () => {
    expect(retentionStart(today)).toBe("2026-11-23");
    expect(flowWindow({ ...marketWide, from: "2026-11-22" })).toMatchObject({ ok: false, error: "out_of_range" });
    expect(flowWindow({ ...marketWide, from: "2026-11-23" })).toMatchObject({ ok: true });
    // The Saturday after Thanksgiving: today − 7 is a Saturday (accepted, it starts at Monday's session), today − 8 the
    // Friday before, which 7 sessions back (the 18th) would still have reached.
    const saturday = { ...scoped, today: "2026-11-28" };
    expect(retentionStart("2026-11-28")).toBe("2026-11-21");
    expect(flowWindow({ ...saturday, from: "2026-11-20" })).toMatchObject({ ok: false, error: "out_of_range" });
    expect(flowWindow({ ...saturday, from: "2026-11-21" })).toEqual({
      ok: true,
      from: { date: "2026-11-21" },
      to: { newest: true },
      clamped: false,
    });
    // A holiday inside the window is fine.
    expect(flowWindow({ ...saturday, from: "2026-11-26", to: "2026-11-26" })).toMatchObject({ ok: true });
    // A `to` alone starts the window at its session: a Sunday `to` inside the 7 days is the Friday before them.
    expect(flowWindow({ ...marketWide, to: "2026-11-22" })).toMatchObject({ ok: false, error: "out_of_range" });
    expect(flowWindow({ ...marketWide, to: "2026-11-23" })).toMatchObject({ ok: true });
  });

  it("count market-wide spans in trading sessions: Wednesday to Monday over the holiday and the weekend is 3", () => {
    expect(sessionsBetween("2026-11-25", "2026-11-30")).toBe(3);
    expect(sessionsBetween("2026-11-26", "2026-11-26")).toBe(0);
    expect(flowWindow({ ...marketWide, from: "2026-11-25", to: "2026-11-30" })).toEqual({
      ok: true,
      from: { date: "2026-11-25" },
      to: { atMostNewest: "2026-11-30" },
      clamped: false,
    });
    expect(flowWindow({ ...marketWide, from: "2026-11-24", to: "2026-11-30" })).toMatchObject({ ok: false, error: "out_of_range" });
    // Named symbols lift the limit.
    expect(flowWindow({ ...scoped, from: "2026-11-23", to: "2026-11-30" })).toMatchObject({ ok: true });
  });

  it("default as the spec says: neither bound is the newest session; `to` alone is the session on or before it", () => {
    expect(flowWindow({ ...marketWide })).toEqual({ ok: true, from: { newest: true }, to: { newest: true }, clamped: false });
    expect(flowWindow({ ...marketWide, to: "2026-11-28" })).toEqual({
      ok: true,
      from: { atMostNewest: "2026-11-27" },
      to: { atMostNewest: "2026-11-27" },
      clamped: false,
    });
    expect(flowWindow({ ...marketWide, to: "2026-11-26" })).toMatchObject({ from: { atMostNewest: "2026-11-25" } });
  });

  it("end a `from`-only window at the newest session with symbols, at the `from` session market-wide", () => {
    expect(flowWindow({ ...scoped, from: "2026-11-24" })).toMatchObject({ from: { date: "2026-11-24" }, to: { newest: true } });
    expect(flowWindow({ ...marketWide, from: "2026-11-24" })).toMatchObject({ from: { date: "2026-11-24" }, to: { date: "2026-11-24" } });
    // A holiday or weekend `from` runs to the next session.
    expect(flowWindow({ ...marketWide, from: "2026-11-26" })).toMatchObject({ to: { date: "2026-11-27" } });
    expect(flowWindow({ ...marketWide, today: "2026-11-28", from: "2026-11-21" })).toMatchObject({ to: { date: "2026-11-23" } });
  });

  it("refuse `from` after `to` and clamp a `from` before a shorter plan history, in calendar days", () => {
    expect(flowWindow({ ...scoped, from: "2026-11-25", to: "2026-11-24" })).toMatchObject({ ok: false, error: "invalid_range" });
    expect(flowWindow({ ...scoped, historyDays: 3, from: "2026-11-23" })).toEqual({
      ok: true,
      from: { date: "2026-11-27" },
      to: { newest: true },
      clamped: true,
    });
  });

  it("resolve bounds against the feed's newest session, today's standing in for an empty feed", () => {
    expect(resolveBound({ atMostNewest: "2026-11-27" }, "2026-11-25", today)).toBe("2026-11-25");
    expect(resolveBound({ atMostNewest: "2026-11-24" }, "2026-11-25", today)).toBe("2026-11-24");
    expect(resolveBound({ newest: true }, "2026-11-25", today)).toBe("2026-11-25");
    expect(resolveBound({ newest: true }, null, "2026-11-29")).toBe("2026-11-27");
    expect(resolveBound({ date: "2026-11-20" }, "2026-11-25", today)).toBe("2026-11-20");
  });
});
