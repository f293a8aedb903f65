import { z } from "zod";
import { defineRoute } from "../../http/route";
import { readEarnings, type EarningsEvent } from "../../market/calendars";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { calendarEnvelope, calendarLimit, calendarPage, calendarQueryShape, calendarWindow } from "./calendar-query";
import { MARKET_WIDE } from "../../market/scopes";

export const EarningsEventSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  earningsDate: z.iso.date(),
  timing: z.enum(["bmo", "amc", "dmh", "unknown"]).describe("Before the open, after the close, during market hours, or unknown."),
  fiscalQuarter: z.string().nullable().describe("e.g. `Q3 2026`."),
  epsEstimated: z.number().nullable().describe("Consensus EPS estimate, USD per share."),
  revenueEstimated: z.number().nullable().describe("Consensus revenue estimate, USD."),
});

export const EarningsSchema = calendarEnvelope(EarningsEventSchema);
export type Earnings = z.infer<typeof EarningsSchema>;

export const earningsRoute = defineRoute({
  method: "get",
  path: "/v1/earnings",
  operationId: "getEarnings",
  summary: "Earnings calendar",
  description:
    "Earnings dates in a window of ET dates (default: 30 days from today; at most 90). Pages are keyset-paginated in " +
    "(date, symbol) order: follow `nextCursor` until it is null.",
  tags: ["Calendars"],
  access: "entitled",
  caching: "snapshot",
  query: z.object(calendarQueryShape),
  response: { description: "One page of the earnings calendar.", schema: EarningsSchema },
  errors: ["invalid_range"],
  handler: (c, { query }) => {
    const window = calendarWindow(c, query);
    const limit = calendarLimit(c, query);
    return snapshotResponse(c, {
      name: `earnings:${window.from}:${window.to}:${window.symbol ?? "*"}`,
      scopes: [MARKET_WIDE],
      compute: (read) => readEarnings(read, window),
      vary: `limit=${limit}`,
      render: ({ value: events }): Promise<Earnings> =>
        calendarPage(
          c,
          "earnings",
          query,
          window,
          limit,
          events,
          (e: EarningsEvent) => [e.earningsDate, e.symbol],
          (e) => e,
        ),
    });
  },
});
