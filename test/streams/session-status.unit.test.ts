import { describe, expect, it } from "vitest";
import { sessionStatus } from "../../src/streams/session-status";

describe("sessionStatus", () => {
  it("tells pre-open, open and closed apart on a regular session (ET, daylight time)", () => {
    expect(sessionStatus(new Date("2026-07-15T13:00:00Z"))).toMatchObject({ date: "2026-07-15", phase: "pre_open", earlyClose: false });
    expect(sessionStatus(new Date("2026-07-15T13:30:00Z"))).toMatchObject({ phase: "open", opensAt: "2026-07-15T13:30:00.000Z" });
    expect(sessionStatus(new Date("2026-07-15T19:59:59Z")).phase).toBe("open");
    expect(sessionStatus(new Date("2026-07-15T20:00:00Z"))).toMatchObject({ phase: "closed", closesAt: "2026-07-15T20:00:00.000Z" });
  });

  it("names the next session on a weekend or holiday, closed", () => {
    expect(sessionStatus(new Date("2026-07-18T15:00:00Z"))).toMatchObject({ date: "2026-07-20", phase: "closed" });
    // Independence Day observed on Friday 2026-07-03.
    expect(sessionStatus(new Date("2026-07-03T15:00:00Z"))).toMatchObject({ date: "2026-07-06", phase: "closed" });
  });

  it("knows the early closes at 13:00 ET (the day after Thanksgiving)", () => {
    const friday = sessionStatus(new Date("2026-11-27T17:30:00Z"));
    expect(friday).toMatchObject({ date: "2026-11-27", phase: "open", earlyClose: true, closesAt: "2026-11-27T18:00:00.000Z" });
    expect(sessionStatus(new Date("2026-11-27T18:00:00Z")).phase).toBe("closed");
  });
});
