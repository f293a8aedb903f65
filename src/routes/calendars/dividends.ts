import { z } from "zod";
import { booleanParam } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { readDividends, type DividendEvent } from "../../market/calendars";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { calendarEnvelope, calendarLimit, calendarPage, calendarQueryShape, calendarWindow } from "./calendar-query";
import { MARKET_WIDE } from "../../market/scopes";

export const DividendEventSchema = z.object({
  symbol: z.string(),
  name: z.string(),
  exDate: z.iso.date(),
  payDate: z.iso.date(),
  amount: z.number().describe("Cash amount per share, USD."),
  yieldPercent: z.number().describe("Annual dividend yield, percent (3.1 means 3.1%)."),
  frequency: z.string().describe("e.g. `Quarterly`, `Semi-Annual`."),
});

export const DividendsSchema = calendarEnvelope(DividendEventSchema);
export type Dividends = z.infer<typeof DividendsSchema>;

export const dividendsRoute = defineRoute({
  method: "get",
  path: "/v1/dividends",
  operationId: "getDividends",
  summary: "Dividend calendar",
  description:
    "Dividend ex-dates in a window of ET dates (default: 30 days from today; at most 90). Without `includeAll=true` symbols " +
    "outside the coverage universe (stocks and ETFs with options data) are left out, unless asked for with `symbol`. " +
    "Pages are keyset-paginated in (ex-date, symbol) order.",
  tags: ["Calendars"],
  access: "entitled",
  caching: "snapshot",
  query: z.object({
    ...calendarQueryShape,
    includeAll: booleanParam({ description: "List every symbol of the source, also outside the coverage universe.", default: false }),
  }),
  response: { description: "One page of the dividend calendar.", schema: DividendsSchema },
  errors: ["invalid_range"],
  handler: (c, { query }) => {
    const window = calendarWindow(c, query);
    const limit = calendarLimit(c, query);
    return snapshotResponse(c, {
      name: `dividends:${window.from}:${window.to}:${window.symbol ?? "*"}`,
      scopes: [MARKET_WIDE],
      compute: (read) => readDividends(read, window),
      vary: `limit=${limit}`,
      render: ({ value: events }): Promise<Dividends> => {
        // A symbol asked for by name is always listed; otherwise coverage decides unless includeAll.
        const listed = query.includeAll || window.symbol !== undefined ? events : events.filter((e) => e.inCoverage);
        return calendarPage(
          c,
          "dividends",
          query,
          window,
          limit,
          listed,
          (e: DividendEvent) => [e.exDate, e.symbol],
          ({ inCoverage: _, ...e }) => e,
        );
      },
    });
  },
});
