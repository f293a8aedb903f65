import { z } from "zod";
import { addDays, daysBetween } from "../../domain/calendar";
import { requestToday } from "../../http/request-clock";
import { tickerParam } from "../../domain/symbols";
import { isoTimestamp } from "../../db/timestamps";
import { unknownSymbol } from "../../http/errors";
import { dteParams, dteWindow } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { readExpirationSchedule } from "../../market/expirations";
import { snapshotResponse } from "../../edge-cache/snapshot-response";

const DEFAULT_MAX_DTE = 365;

export const ExpirationsSchema = z.object({
  symbol: z.string(),
  asOf: z.iso.datetime().nullable().describe("Snapshot time."),
  expirations: z.array(z.object({ expiration: z.iso.date(), dte: z.int() })).describe("Chronological."),
});
export type Expirations = z.infer<typeof ExpirationsSchema>;

export const expirationsRoute = defineRoute({
  method: "get",
  path: "/v1/expirations/{symbol}",
  operationId: "getExpirations",
  summary: "Expiration schedule",
  tags: ["Quotes and options"],
  access: "entitled",
  caching: "snapshot",
  params: z.object({ symbol: tickerParam }),
  query: z.object(
    dteParams({
      maxBound: 3_650,
      maxDoc: `Maximum days to expiration (default ${DEFAULT_MAX_DTE}; 0 means unset).`,
      maxDefault: DEFAULT_MAX_DTE,
    }),
  ),
  response: { description: "Listed expirations in the DTE window.", schema: ExpirationsSchema },
  errors: ["not_found", "invalid_range"],
  handler: (c, { params, query }) => {
    const window = dteWindow(query, { zeroMaxIsUnset: true });
    return snapshotResponse(c, {
      name: `expirations:${params.symbol}`,
      scopes: [params.symbol],
      compute: (read) => readExpirationSchedule(read, params.symbol),
      render: ({ snapshot, value: schedule }): Expirations => {
        if (!schedule.exists) throw unknownSymbol(params.symbol);
        const today = requestToday(c);
        // A window beyond the default maximum (minDte=400) is simply empty.
        const from = addDays(today, window.min);
        const to = addDays(today, window.max ?? DEFAULT_MAX_DTE);
        return {
          symbol: params.symbol,
          asOf: isoTimestamp(snapshot.asOf),
          expirations: schedule.expirations.filter((e) => e >= from && e <= to).map((e) => ({ expiration: e, dte: daysBetween(today, e) })),
        };
      },
    });
  },
});
