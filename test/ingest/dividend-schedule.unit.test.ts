import { describe, expect, it } from "vitest";
import { dividendFrequency, estimatedNextDividend } from "../../ingest/fundamentals/dividend-schedule";

const paid = (...dates: string[]) => dates.map((exDate, i) => ({ exDate, payDate: exDate, amount: 0.5 + i / 100 }));

describe("a payer's dividend schedule from its ex-dates", () => {
  it.each([
    ["Monthly", paid("2026-06-15", "2026-07-15", "2026-08-14", "2026-09-15", "2026-10-15")],
    ["Quarterly", paid("2025-11-10", "2026-02-09", "2026-05-11", "2026-08-10")],
    // A special dividend between two regular ones does not make it monthly: the median gap decides.
    ["Quarterly", paid("2025-11-10", "2026-02-09", "2026-03-02", "2026-05-11", "2026-08-10")],
    ["Semi-Annual", paid("2025-09-12", "2026-03-13", "2026-09-11")],
    ["Annual", paid("2024-12-02", "2025-12-01")],
  ])("names %s", (frequency, dividends) => expect(dividendFrequency(dividends)).toBe(frequency));

  it("names none from a single ex-date or gaps longer than an annual payer's", () => {
    expect(dividendFrequency(paid("2026-05-11"))).toBeNull();
    expect(dividendFrequency(paid("2024-01-10", "2025-06-02"))).toBeNull();
    expect(dividendFrequency([])).toBeNull();
  });

  it("estimates the next one a period after the last, on a session, paid as long after as the last", () => {
    const last = { exDate: "2026-08-10", payDate: "2026-08-13", amount: 0.27 };
    expect(estimatedNextDividend([last], "Quarterly", "2026-11-02")).toEqual({ exDate: "2026-11-09", payDate: "2026-11-12", amount: 0.27 });
    // 2026-09-25 + 91 days is Christmas Day (a Friday, a holiday): moved to Monday 2026-12-28.
    expect(estimatedNextDividend([{ exDate: "2026-09-25", payDate: "2026-10-05", amount: 1 }], "Quarterly", "2026-11-02")).toEqual({
      exDate: "2026-12-28",
      payDate: "2027-01-07",
      amount: 1,
    });
  });

  it("estimates nothing once one is declared, after payments stopped, or without a frequency", () => {
    expect(estimatedNextDividend(paid("2026-08-10", "2026-11-09"), "Quarterly", "2026-11-02")).toBeNull();
    expect(estimatedNextDividend(paid("2026-03-02"), "Quarterly", "2026-11-02")).toBeNull();
    expect(estimatedNextDividend(paid("2026-08-10"), null, "2026-11-02")).toBeNull();
  });
});
