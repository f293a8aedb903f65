import { z } from "zod";
import { IV_SOURCES, OPEN_INTEREST_SOURCES } from "../../analytics/flow";
import { requestToday } from "../../http/request-clock";
import { MARKET_WIDE_MAX_SESSIONS, RETENTION_DAYS, resolveBound } from "../../domain/flow-window";
import { STANDARD_LIMITS } from "../../domain/plans";
import { isoTimestamp } from "../../db/timestamps";
import { clampToPlan, markClamped } from "../../http/limit-headers";
import { limitParam } from "../../http/query-params";
import { withinQueryBudget } from "../../http/query-timeout";
import { defineRoute } from "../../http/route";
import { FLOW_COUNT_CAP, flowCountQuery, flowPageQuery, newestPrintQuery, servedPrint, type FlowFilter } from "../../market/flow";
import { enumParam, flowSelection, flowSelectionShape, flowWindowShape, rejectFromAfterNewest, requestedWindow } from "./flow-params";
import { services } from "../../services";

export const DEFAULT_FLOW_LIMIT = 50;
export const MAX_FLOW_LIMIT = 500;

export const FlowPrintSchema = z.object({
  executedAt: z.iso.datetime().describe("UTC."),
  ticker: z.string().describe("Underlying."),
  optionSymbol: z.string().describe("OCC symbol, compact."),
  optionType: z.enum(["call", "put"]),
  strike: z.number(),
  expiration: z.iso.date(),
  dte: z.int().describe("Calendar days from the trade's session to expiration."),
  side: z.enum(["ask", "bid", "mid", "unknown"]).describe("Fill side against the NBBO at trade time; unknown without a valid NBBO."),
  sentiment: z.enum(["bullish", "bearish", "neutral"]),
  executionType: z.enum(["sweep", "block", "split"]),
  premium: z.number().describe("price × size × 100, USD."),
  size: z.int().describe("Contracts."),
  price: z.number().describe("USD per share."),
  underlyingPrice: z
    .number()
    .describe("Spot at the trade: the feed's, else the nearest one of the underlying in the session; 0 when none is known."),
  otmPct: z.number().describe("Strike beyond spot, percent of spot; negative in the money; 0 when underlyingPrice is 0."),
  volume: z.int().describe("The contract's volume in the session up to and including this print."),
  openInterest: z.int().describe("Open interest at the session's start (see openInterestSource); 0 when unknown."),
  openInterestSource: z
    .enum(OPEN_INTEREST_SOURCES)
    .describe(
      "Not in the spec's table. `session`: the figure of the print's session; `earlier`: the latest known before it; `none`: unknown (openInterest 0, opening false).",
    ),
  opening: z.boolean().describe("size > openInterest; false when the open interest is unknown."),
  delta: z.number().describe("At the trade, from the IV of ivSource; 0 when ivSource is none."),
  impliedVolatility: z
    .number()
    .describe("Percent: from the trade price, else the NBBO mid at the trade, else the contract's snapshot IV (ivSource); 0 when none."),
  ivSource: z
    .enum(IV_SOURCES)
    .describe(
      "Not in the spec's table. Where impliedVolatility and delta come from: `trade` (the trade price), `mid` (the NBBO mid at the trade), `snapshot` (the contract's stored IV), `none` (both 0).",
    ),
  isETFOrIndex: z.boolean(),
});

export const FlowSchema = z.object({
  asOf: z.iso.datetime().nullable().describe("Time of the newest trade in the whole feed; null when the feed is empty."),
  retentionDays: z.int().describe(`Days of prints kept, counted back from today's ET date: ${RETENTION_DAYS}.`),
  fromDate: z.iso.date().describe("First session of the window served."),
  toDate: z.iso.date().describe("Last session of the window served."),
  count: z.int().describe(`Prints matching before the limit, counted up to ${FLOW_COUNT_CAP}.`),
  countCapped: z.boolean().describe(`True when count reached ${FLOW_COUNT_CAP}.`),
  prints: z.array(FlowPrintSchema),
});
export type Flow = z.infer<typeof FlowSchema>;

const FlowQuery = z.object({
  ...flowSelectionShape,
  limit: limitParam({
    description: `Prints, 1-${MAX_FLOW_LIMIT} (default ${DEFAULT_FLOW_LIMIT}); clamped to ${MAX_FLOW_LIMIT} and to the plan's maximum rows (${STANDARD_LIMITS.maxRows}) with X-Limit-Clamped: true.`,
    default: DEFAULT_FLOW_LIMIT,
  }),
  sort: enumParam(["premium", "time"], "`premium` (descending, default) or `time` (executedAt descending)."),
  ...flowWindowShape,
});

export const flowRoute = defineRoute({
  method: "get",
  path: "/v1/flow",
  operationId: "getFlow",
  summary: "Options flow",
  description:
    `Classified option trade prints of the sessions of the last ${RETENTION_DAYS} days (\`from\` at the earliest today − ${RETENTION_DAYS} days, ET), ` +
    "largest premium (or newest) first. Window: with neither `from` nor " +
    "`to`, the newest session; `to` alone is that one session (the newest when later); `from` alone ends at the newest session " +
    `when symbols are named, else it is the \`from\` session. A market-wide query spans at most ${MARKET_WIDE_MAX_SESSIONS} trading sessions. ` +
    "A query past the time budget gives 503 query_timeout with Retry-After.",
  tags: ["Flow"],
  access: "entitled",
  caching: "per-request",
  query: FlowQuery,
  response: { description: "Matching prints.", schema: FlowSchema },
  errors: ["out_of_range", "invalid_range", "query_timeout"],
  handler: async (c, { query }) => {
    const limits = c.get("account").limits;
    const selection = flowSelection(query, limits.flowSymbols);
    const tickers = selection.tickers;
    const today = requestToday(c);
    const window = requestedWindow(query, {
      fromOnlyEndsAt: tickers.length > 0 ? "newest" : "fromSession",
      maxSessions: tickers.length > 0 ? undefined : MARKET_WIDE_MAX_SESSIONS,
      historyDays: limits.historyDays,
      today,
    });
    if (window.clamped) markClamped(c);
    const requested = query.limit ?? DEFAULT_FLOW_LIMIT;
    const limit = clampToPlan(c, Math.min(requested, MAX_FLOW_LIMIT), limits.maxRows);
    if (requested > MAX_FLOW_LIMIT) markClamped(c);
    const filter: FlowFilter = { from: window.from, to: window.to, ...selection };

    const db = services(c).market;
    const [rows, counted, newest] = await withinQueryBudget(
      db.batch([flowPageQuery(db, filter, query.sort ?? "premium", limit), flowCountQuery(db, filter), newestPrintQuery(db)]),
    );
    const newestSession = newest[0]?.sessionDate ?? null;
    rejectFromAfterNewest(window.requestedFrom, newestSession);
    const count = counted[0]?.n ?? 0;
    return {
      asOf: isoTimestamp(newest[0]?.executedAt ?? null),
      retentionDays: RETENTION_DAYS,
      fromDate: resolveBound(window.from, newestSession, today),
      toDate: resolveBound(window.to, newestSession, today),
      count,
      countCapped: count >= FLOW_COUNT_CAP,
      prints: rows.map(servedPrint),
    };
  },
});
