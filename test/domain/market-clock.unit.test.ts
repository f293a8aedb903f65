import { describe, expect, it } from "vitest";
import { quoteAnalytics } from "../../src/analytics/quote-analytics";
import { newYorkInstant } from "../../src/domain/calendar";
import { expiryInstant, hasExpired, settlementPhase, yearsToExpiry, YEAR_MS } from "../../src/domain/market-clock";

const MINUTE = 60_000 / YEAR_MS;
const et = (date: string, h: number, m = 0, s = 0) => newYorkInstant(date, h, m, s);

describe("time to expiry ends at settlement", () => {
  it("runs to the close for PM-settled contracts and is 0 from it on, with no floor", () => {
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-07", 15, 59))).toBeCloseTo(MINUTE, 15);
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-07", 15, 59, 59))).toBeCloseTo(MINUTE / 60, 15);
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-07", 16))).toBe(0);
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-07", 16, 30))).toBe(0);
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-09", 10))).toBe(0);
    expect(yearsToExpiry("2022-02-07", "pm", et("2022-02-04", 16))).toBeCloseTo(3 / 365, 15);
  });

  it("runs to the open for AM-settled contracts: expired all of their last session", () => {
    expect(yearsToExpiry("2022-02-18", "am", et("2022-02-18", 9, 29))).toBeCloseTo(MINUTE, 15);
    expect(yearsToExpiry("2022-02-18", "am", et("2022-02-18", 9, 30))).toBe(0);
    expect(yearsToExpiry("2022-02-18", "am", et("2022-02-18", 15))).toBe(0);
    expect(hasExpired("2022-02-18", "am", et("2022-02-18", 9, 30))).toBe(true);
    expect(hasExpired("2022-02-18", "pm", et("2022-02-18", 9, 30))).toBe(false);
  });

  it("ends at 13:00 ET on an early-close day (the day after Thanksgiving 2026)", () => {
    expect(expiryInstant("2026-11-27", "pm").getTime()).toBe(et("2026-11-27", 13).getTime());
    expect(yearsToExpiry("2026-11-27", "pm", et("2026-11-27", 12, 59))).toBeCloseTo(MINUTE, 15);
    expect(yearsToExpiry("2026-11-27", "pm", et("2026-11-27", 13))).toBe(0);
    expect(hasExpired("2026-11-27", "pm", et("2026-11-27", 13))).toBe(true);
    expect(settlementPhase(et("2026-11-27", 12, 59))).toBe(1);
    expect(settlementPhase(et("2026-11-27", 13))).toBe(2);
  });

  it("has a settlement phase that, with the date, decides for every contract whether it has expired", () => {
    const expirations = ["2026-11-17", "2026-11-18", "2026-11-19", "2026-11-27"];
    const instants = [
      et("2026-11-18", 0, 0),
      et("2026-11-18", 9, 29, 59),
      et("2026-11-18", 9, 30),
      et("2026-11-18", 15, 59, 59),
      et("2026-11-18", 16),
      et("2026-11-18", 23, 59, 59),
    ];
    expect(instants.map(settlementPhase)).toEqual([0, 0, 1, 1, 2, 2]);
    for (const at of instants) {
      const phase = settlementPhase(at);
      for (const expiration of expirations) {
        for (const settlement of ["am", "pm"] as const) {
          const expected = expiration < "2026-11-18" || (expiration === "2026-11-18" && phase >= (settlement === "am" ? 1 : 2));
          expect(hasExpired(expiration, settlement, at), `${expiration} ${settlement} at ${at.toISOString()}`).toBe(expected);
        }
      }
    }
  });

  it("gives an expired contract null Greeks and keeps its IV as given", () => {
    const terms = { S: 4500, K: 4500, r: 0.0025, q: 0, side: "call" as const };
    expect(quoteAnalytics(0.2, { ...terms, T: 0 })).toEqual({ iv: 0.2, delta: null, gamma: null, theta: null, vega: null, rho: null });
    expect(quoteAnalytics(null, { ...terms, T: 0 }).iv).toBeNull();
    expect(quoteAnalytics(0.2, { ...terms, T: MINUTE }).gamma).toBeGreaterThan(0);
  });
});
