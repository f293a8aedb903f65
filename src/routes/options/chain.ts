import { z } from "zod";
import { addDays, todayInNewYork } from "../../domain/calendar";
import { planById } from "../../domain/plans";
import { tickerParam } from "../../domain/symbols";
import { database } from "../../db/client";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError } from "../../http/errors";
import { clampToPlan } from "../../http/limit-headers";
import { aliased, dateParam, intParam, numberParam } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { decodeCursor, encodeCursor, queryDigest } from "../../market/cursor";
import { OptionQuoteSchema, toOptionQuote } from "../../market/option-quote";
import { chainPageQuery, snapshotQuery, underlyingQuery, type ChainFilter, type ChainKey } from "../../market/queries";

export const DEFAULT_CHAIN_LIMIT = 500;
const DEFAULT_DTE_WINDOW = 45;

export const ChainSchema = z.object({
  symbol: z.string(),
  underlyingPrice: z.number().describe("Spot from the first returned contract (page 1's spot on later pages), USD."),
  asOf: z.iso.datetime().nullable().describe("Chain snapshot time."),
  truncated: z.boolean().describe("True when more contracts match than were returned."),
  nextCursor: z.string().nullable().describe("Opaque; pass as `cursor` for the next page; null when there are no more."),
  contracts: z.array(OptionQuoteSchema).describe("Sorted by expiration, strike, type within the page."),
});

const int = (description: string) => intParam(0, 1_000_000_000, { description });
const dte = (description: string, defaultValue?: number) => intParam(0, 3_650, { description, default: defaultValue });

const ChainQuery = z.object({
  expiration: dateParam.describe("Only this expiration (YYYY-MM-DD). Replaces the default DTE window."),
  side: z.enum(["call", "put"]).optional(),
  strikeMin: numberParam({ description: "Lowest strike, USD." }, { min: 0 }),
  strikeMax: numberParam({ description: "Highest strike, USD; below strikeMin gives 400 invalid_range." }, { min: 0 }),
  deltaMin: numberParam(
    { description: "Lowest absolute delta; signed put deltas are normalised (-0.3 means 0.3); |x| > 1 gives 400." },
    { min: -1, max: 1 },
  ),
  deltaMax: numberParam(
    { description: "Highest absolute delta; signed put deltas are normalised; |x| > 1 gives 400." },
    { min: -1, max: 1 },
  ),
  minOI: int("Minimum open interest. Alias: oiMin."),
  oiMin: int("Alias of minOI."),
  minVolume: int("Minimum volume today. Alias: volumeMin."),
  volumeMin: int("Alias of minVolume."),
  minDte: dte("Minimum days to expiration (default 0). Alias: dteMin.", 0),
  dteMin: dte("Alias of minDte."),
  maxDte: dte(`Maximum days to expiration (default minDte + ${DEFAULT_DTE_WINDOW}; 0 means unset). Alias: dteMax.`),
  dteMax: dte("Alias of maxDte."),
  limit: intParam(1, 100_000, {
    description: `Contracts per page (default ${DEFAULT_CHAIN_LIMIT}); clamped to the plan's maximum rows (250) with X-Limit-Clamped: true.`,
    default: DEFAULT_CHAIN_LIMIT,
  }),
  cursor: z.string().max(512).optional().describe("Opaque cursor from `nextCursor`."),
});

type ChainQueryInput = z.infer<typeof ChainQuery>;

function absDelta(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (Math.abs(value) > 1) throw new ApiError("invalid_parameter", `Invalid query parameter '${name}': an absolute delta is at most 1.`);
  return Math.abs(value);
}

/** Validates and normalises the chain parameters into the filter the query runs. */
function chainFilter(symbol: string, q: ChainQueryInput, today: string): ChainFilter {
  if (q.strikeMin !== undefined && q.strikeMax !== undefined && q.strikeMin > q.strikeMax) {
    throw new ApiError("invalid_range", `strikeMin (${q.strikeMin}) is above strikeMax (${q.strikeMax}).`);
  }
  const absDeltaMin = absDelta("deltaMin", q.deltaMin);
  const absDeltaMax = absDelta("deltaMax", q.deltaMax);
  if (absDeltaMin !== undefined && absDeltaMax !== undefined && absDeltaMin > absDeltaMax) {
    throw new ApiError("invalid_range", `The absolute delta bounds are reversed (${absDeltaMin} > ${absDeltaMax}).`);
  }
  const minDte = aliased(q, "minDte", "dteMin");
  const maxDte = aliased(q, "maxDte", "dteMax") || undefined;
  if (maxDte !== undefined && maxDte < (minDte ?? 0))
    throw new ApiError("invalid_range", `maxDte (${maxDte}) is below minDte (${minDte ?? 0}).`);
  // An explicit expiration replaces the default window; explicit DTE bounds still apply.
  const window =
    q.expiration !== undefined && minDte === undefined && maxDte === undefined
      ? null
      : { min: minDte ?? 0, max: maxDte ?? (minDte ?? 0) + DEFAULT_DTE_WINDOW };
  return {
    symbol,
    expiration: q.expiration,
    expirationFrom: window ? addDays(today, window.min) : undefined,
    expirationTo: window ? addDays(today, window.max) : undefined,
    side: q.side,
    strikeMin: q.strikeMin,
    strikeMax: q.strikeMax,
    absDeltaMin,
    absDeltaMax,
    minOpenInterest: aliased(q, "minOI", "oiMin"),
    minVolume: aliased(q, "minVolume", "volumeMin"),
  };
}

export const chainRoute = defineRoute({
  method: "get",
  path: "/v1/chain/{symbol}",
  operationId: "getChain",
  summary: "Option chain",
  description:
    "Contracts of one underlying with quotes and Greeks. Default window: 0 to 45 days to expiration (minDte + 45). " +
    "Pages are keyset-paginated in (expiration, strike, type) order: follow `nextCursor` until it is null. A cursor is bound " +
    "to its query; pages never overlap or repeat, also when new market data is loaded between requests (later pages then " +
    "continue in the new snapshot from the same position and keep page 1's `underlyingPrice`).",
  tags: ["Quotes and options"],
  access: "entitled",
  params: z.object({ symbol: tickerParam }),
  query: ChainQuery,
  responses: { 200: { description: "One page of the chain.", schema: ChainSchema } },
  errors: [404],
  handler: async (c, { params, query }) => {
    const config = c.get("config");
    const today = todayInNewYork();
    const filter = chainFilter(params.symbol, query, today);
    const maxRows = planById(c.get("account").entitlement.plan)?.limits.maxRows ?? 250;
    const limit = clampToPlan(c, query.limit ?? DEFAULT_CHAIN_LIMIT, maxRows);
    // Bound to the parameters as sent and the page size (not to the date: a cursor survives midnight).
    const digest = await queryDigest({ symbol: params.symbol, query: { ...query, cursor: undefined }, limit });
    const cursor = query.cursor ? await decodeCursor(config.CURSOR_SECRET, query.cursor, digest) : null;

    const db = database(config.MARKET_DATABASE_URL);
    const [snapshot, underlying, rows] = await db.batch([
      snapshotQuery(db),
      underlyingQuery(db, params.symbol),
      chainPageQuery(db, filter, cursor?.after ?? null, limit),
    ]);
    if (underlying.length === 0) throw new ApiError("not_found", `Unknown symbol ${params.symbol}.`);

    const page = rows.slice(0, limit);
    const last = page.at(-1);
    const spot = cursor?.spot ?? page[0]?.underlyingPrice ?? underlying[0]?.price ?? 0;
    const truncated = rows.length > limit;
    const after: ChainKey | null = truncated && last ? [last.expiration, last.strike, last.side, last.root] : null;
    return c.json({
      symbol: params.symbol,
      underlyingPrice: spot,
      asOf: isoTimestamp(snapshot[0]?.asOf ?? null),
      truncated,
      nextCursor: after ? await encodeCursor(config.CURSOR_SECRET, { after, spot, query: digest }) : null,
      contracts: page.map((r) => toOptionQuote(r, today)),
    });
  },
});
