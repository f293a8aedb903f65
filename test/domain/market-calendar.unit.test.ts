import { describe, expect, it } from "vitest";
import {
  closeTime,
  earlyCloses,
  easterSunday,
  isEarlyClose,
  isMarketHoliday,
  isTradingDay,
  marketHolidays,
} from "../../src/domain/market-calendar";
import { previousSessions, sessionCloseAt, sessionOnOrBefore, todayInNewYork } from "../../src/domain/calendar";

/**
 * NYSE's published holiday and early-close calendars ("Holidays & Trading Hours",
 * nyse.com/markets/hours-calendars), copied by hand. 2025 includes the unscheduled closure for
 * President Carter's National Day of Mourning (announced 2024-12-30).
 */
const PUBLISHED: Record<number, { holidays: string[]; earlyCloses: string[] }> = {
  2024: {
    holidays: [
      "2024-01-01", // New Year's Day
      "2024-01-15", // Martin Luther King, Jr. Day
      "2024-02-19", // Washington's Birthday
      "2024-03-29", // Good Friday
      "2024-05-27", // Memorial Day
      "2024-06-19", // Juneteenth
      "2024-07-04", // Independence Day
      "2024-09-02", // Labor Day
      "2024-11-28", // Thanksgiving Day
      "2024-12-25", // Christmas Day
    ],
    earlyCloses: ["2024-07-03", "2024-11-29", "2024-12-24"],
  },
  2025: {
    holidays: [
      "2025-01-01",
      "2025-01-09", // National Day of Mourning (Jimmy Carter)
      "2025-01-20",
      "2025-02-17",
      "2025-04-18",
      "2025-05-26",
      "2025-06-19",
      "2025-07-04",
      "2025-09-01",
      "2025-11-27",
      "2025-12-25",
    ],
    earlyCloses: ["2025-07-03", "2025-11-28", "2025-12-24"],
  },
  2026: {
    holidays: [
      "2026-01-01",
      "2026-01-19",
      "2026-02-16",
      "2026-04-03",
      "2026-05-25",
      "2026-06-19",
      "2026-07-03", // Independence Day observed (July 4 is a Saturday)
      "2026-09-07",
      "2026-11-26",
      "2026-12-25",
    ],
    earlyCloses: ["2026-11-27", "2026-12-24"],
  },
  2027: {
    holidays: [
      "2027-01-01",
      "2027-01-18",
      "2027-02-15",
      "2027-03-26",
      "2027-05-31",
      "2027-06-18", // Juneteenth observed (June 19 is a Saturday)
      "2027-07-05", // Independence Day observed (July 4 is a Sunday)
      "2027-09-06",
      "2027-11-25",
      "2027-12-24", // Christmas observed (December 25 is a Saturday)
    ],
    earlyCloses: ["2027-11-26"],
  },
};

describe("market calendar: NYSE holidays and early closes by rule", () => {
  for (const [year, published] of Object.entries(PUBLISHED)) {
    it(`reproduces the published ${year} calendar`, () => {
      expect(marketHolidays(Number(year)).map((h) => h.date)).toEqual(published.holidays);
      expect(earlyCloses(Number(year)).map((h) => h.date)).toEqual(published.earlyCloses);
      for (const d of published.holidays) expect(isTradingDay(d), d).toBe(false);
      for (const d of published.earlyCloses) {
        expect(isTradingDay(d), d).toBe(true);
        expect(closeTime(d), d).toEqual({ hours: 13, minutes: 0 });
      }
    });
  }

  it("names each holiday", () => {
    expect(marketHolidays(2026).find((h) => h.date === "2026-04-03")?.name).toBe("Good Friday");
    expect(marketHolidays(2027).find((h) => h.date === "2027-12-24")?.name).toBe("Christmas Day");
    expect(earlyCloses(2025).map((h) => h.name)).toEqual(["Independence Day eve", "Day after Thanksgiving", "Christmas Eve"]);
  });

  it("does not observe a Saturday New Year's Day on the Friday before", () => {
    // 2022-01-01 and 2028-01-01 are Saturdays: the Fridays before were (will be) full sessions.
    expect(isTradingDay("2021-12-31")).toBe(true);
    expect(closeTime("2021-12-31")).toEqual({ hours: 16, minutes: 0 });
    expect(isTradingDay("2027-12-31")).toBe(true);
    expect(marketHolidays(2022).some((h) => h.name === "New Year's Day")).toBe(false);
    expect(marketHolidays(2028).some((h) => h.name === "New Year's Day")).toBe(false);
  });

  it("moves Sunday holidays to Monday and Saturday holidays to Friday", () => {
    expect(isMarketHoliday("2023-01-02")).toBe(true); // New Year's Day on a Sunday
    expect(isMarketHoliday("2022-06-20")).toBe(true); // Juneteenth on a Sunday
    expect(isMarketHoliday("2021-07-05")).toBe(true); // Independence Day on a Sunday
    expect(isMarketHoliday("2022-12-26")).toBe(true); // Christmas on a Sunday
    expect(isMarketHoliday("2020-07-03")).toBe(true); // Independence Day on a Saturday
    expect(isMarketHoliday("2021-12-24")).toBe(true); // Christmas on a Saturday
  });

  it("has no Juneteenth before 2022 and no Martin Luther King Jr. Day before 1998", () => {
    expect(isTradingDay("2021-06-18")).toBe(true);
    expect(isMarketHoliday("2022-06-20")).toBe(true);
    expect(isTradingDay("1997-01-20")).toBe(true);
    expect(isMarketHoliday("1998-01-19")).toBe(true);
  });

  it("closes early on July 3 only when it is a weekday before a weekday Independence Day", () => {
    expect(isEarlyClose("2023-07-03")).toBe(true); // Monday before a Tuesday holiday
    expect(isEarlyClose("2019-07-03")).toBe(true);
    expect(isEarlyClose("2020-07-03")).toBe(false); // the observed holiday itself
    expect(isEarlyClose("2021-07-02")).toBe(false); // July 4 on a Sunday: no early close on the Friday
    expect(earlyCloses(2022).map((d) => d.date)).toEqual(["2022-11-25"]); // July 3 and Dec 24 on weekends
    expect(earlyCloses(2021).map((d) => d.date)).toEqual(["2021-11-26"]); // Dec 24 is the observed Christmas
  });

  it("computes Easter by the Gregorian computus", () => {
    const known: Record<number, string> = {
      1818: "1818-03-22",
      1943: "1943-04-25",
      2000: "2000-04-23",
      2008: "2008-03-23",
      2011: "2011-04-24",
      2019: "2019-04-21",
      2024: "2024-03-31",
      2038: "2038-04-25",
    };
    for (const [year, date] of Object.entries(known)) expect(easterSunday(Number(year))).toBe(date);
  });

  it("lists the unscheduled closures that no rule derives", () => {
    expect(isMarketHoliday("2018-12-05")).toBe(true);
    expect(isMarketHoliday("2012-10-29")).toBe(true);
    expect(isMarketHoliday("2012-10-30")).toBe(true);
  });
});

describe("session rule of the calendar", () => {
  it("skips weekends and holidays when counting sessions back", () => {
    expect(previousSessions("2026-12-28", 5)).toEqual(["2026-12-21", "2026-12-22", "2026-12-23", "2026-12-24", "2026-12-28"]);
    expect(sessionOnOrBefore("2026-04-05")).toBe("2026-04-02"); // Easter Sunday → the Thursday before Good Friday
    expect(sessionOnOrBefore("2026-11-26")).toBe("2026-11-25");
    expect(sessionOnOrBefore("2026-11-27")).toBe("2026-11-27");
  });

  it("gives each session's close instant in New York time", () => {
    expect(sessionCloseAt("2026-11-27").toISOString()).toBe("2026-11-27T18:00:00.000Z"); // 13:00 EST
    expect(sessionCloseAt("2025-07-03").toISOString()).toBe("2025-07-03T17:00:00.000Z"); // 13:00 EDT
    expect(sessionCloseAt("2026-11-20").toISOString()).toBe("2026-11-20T21:00:00.000Z"); // 16:00 EST
  });
});

describe("today in New York", () => {
  it("turns at New York's midnight, in winter and in summer and across both clock changes, whatever instants came before", () => {
    const cases: [string, string][] = [
      ["2026-01-15T04:59:59.999Z", "2026-01-14"], // EST: midnight is 05:00 UTC
      ["2026-01-15T05:00:00.000Z", "2026-01-15"],
      ["2026-07-15T03:59:59.999Z", "2026-07-14"], // EDT: 04:00 UTC
      ["2026-07-15T04:00:00.000Z", "2026-07-15"],
      ["2026-03-08T04:59:59.999Z", "2026-03-07"], // the night clocks go forward
      ["2026-03-08T05:00:00.000Z", "2026-03-08"],
      ["2026-11-01T03:59:59.999Z", "2026-10-31"], // the night clocks go back
      ["2026-11-01T04:00:00.000Z", "2026-11-01"],
      ["2026-01-15T04:59:59.999Z", "2026-01-14"], // an instant seen before, asked again after others
    ];
    for (const [at, date] of cases) expect([at, todayInNewYork(new Date(at))]).toEqual([at, date]);
  });
});
