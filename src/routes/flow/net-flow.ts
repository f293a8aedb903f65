import { z } from "zod";
import { cumulativeNetFlow } from "../../analytics/net-flow";
import { requestToday } from "../../http/request-clock";
import { RETENTION_DAYS } from "../../domain/flow-window";
import { STANDARD_LIMITS } from "../../domain/plans";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError } from "../../http/errors";
import { aliased } from "../../http/input-checks";
import { withinQueryBudget } from "../../http/query-timeout";
import { defineRoute } from "../../http/route";
import { netFlowMinutesQuery, netFlowSpotQuery, newestPrintQuery } from "../../market/flow";
import {
  DEFAULT_MIN_PREMIUM,
  flowWindowShape,
  minPremiumParam,
  optionalTicker,
  rejectFromAfterNewest,
  requestedWindow,
} from "./flow-params";
import { services } from "../../services";

export const NetFlowSchema = z.object({
  ticker: z.string(),
  retentionDays: z.int().describe(`Days of prints kept, counted back from today's ET date: ${RETENTION_DAYS}.`),
  mode: z.literal("cumulative"),
  points: z
    .array(
      z.object({
        t: z.iso.datetime().describe("Start of the minute, UTC."),
        netCallPremium: z.number().describe("Cumulative ask-side minus bid-side call premium since the window's first minute, USD."),
        netPutPremium: z.number().describe("Cumulative ask-side minus bid-side put premium, USD."),
        netVolume: z.number().describe("Cumulative ask-side minus bid-side contracts, calls and puts."),
      }),
    )
    .describe("One point per minute with prints at or above minPremium, chronological."),
  summary: z.object({
    volume: z.number().describe("Contracts of the prints at or above minPremium."),
    ncp: z.number().describe("Net call premium of the window (the last point's), USD."),
    npp: z.number().describe("Net put premium of the window, USD."),
    spot: z.number().nullable().describe("Underlying price at the window's newest print, else the stored quote; null when neither exists."),
  }),
});
export type NetFlow = z.infer<typeof NetFlowSchema>;

/** Which prints a net flow series sums, whatever window it reads: `/v1/flow/net`'s parameters, and the `netflow` stream's. */
export const netFlowSelectionShape = {
  symbol: optionalTicker("The underlying (required). Alias: ticker."),
  ticker: optionalTicker("Alias of symbol."),
  minPremium: minPremiumParam,
};

/** The series' ticker, or the spec's 400 without one. */
export function netFlowTicker(q: { symbol?: string; ticker?: string }): string {
  const ticker = aliased(q, "symbol", "ticker");
  if (ticker === undefined) throw new ApiError("missing_symbol", "The query parameter 'symbol' (or 'ticker') is required.");
  return ticker;
}

export const netFlowRoute = defineRoute({
  method: "get",
  path: "/v1/flow/net",
  operationId: "getNetFlow",
  summary: "Net flow, 1-minute cumulative",
  description:
    "Cumulative net call and put premium of one underlying, per minute: ask-side minus bid-side premium of regular prints " +
    "(mid, unknown-side and multi-leg prints count for volume only; canceled prints not at all). Window: the newest session by " +
    `default; \`to\` defaults to the \`from\` session; \`from\` at the earliest today − ${RETENTION_DAYS} days (ET).`,
  tags: ["Flow"],
  access: "entitled",
  caching: "per-request",
  query: z.object({ ...netFlowSelectionShape, ...flowWindowShape }),
  response: { description: "The net flow series and its summary.", schema: NetFlowSchema },
  errors: ["missing_symbol", "out_of_range", "invalid_range", "query_timeout"],
  handler: async (c, { query }) => {
    const ticker = netFlowTicker(query);
    const today = requestToday(c);
    // Net flow is not a list: the plan's history clamp does not apply (Limits rule 4), retention does.
    const window = requestedWindow(query, { fromOnlyEndsAt: "fromSession", historyDays: STANDARD_LIMITS.historyDays, today });
    const minPremium = query.minPremium ?? DEFAULT_MIN_PREMIUM;

    const db = services(c).market;
    const [minutes, spot, newest] = await withinQueryBudget(
      db.batch([
        netFlowMinutesQuery(db, ticker, window.from, window.to, minPremium),
        netFlowSpotQuery(db, ticker, window.from, window.to),
        newestPrintQuery(db),
      ]),
    );
    rejectFromAfterNewest(window.requestedFrom, newest[0]?.sessionDate ?? null);
    const series = cumulativeNetFlow(minutes.map((m) => ({ ...m, minute: Date.parse(isoTimestamp(m.minute)) })));
    return {
      ticker,
      retentionDays: RETENTION_DAYS,
      mode: "cumulative" as const,
      points: series.points.map((p) => ({ ...p, t: new Date(p.t).toISOString() })),
      summary: { volume: series.volume, ncp: series.ncp, npp: series.npp, spot: spot[0]?.spot ?? null },
    };
  },
});
