import { z } from "zod";
import { addDays } from "../../domain/calendar";
import { requestNow, requestSettlementPhase, requestToday } from "../../http/request-clock";
import { STANDARD_LIMITS } from "../../domain/plans";
import { tickerParam } from "../../domain/symbols";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError, unknownSymbol } from "../../http/errors";
import { clampToPlan } from "../../http/limit-headers";
import { cursorPosition } from "../../http/cursor-param";
import { aliased, orderedRange } from "../../http/input-checks";
import { dateParam, dteParams, dteWindow, intParam, limitParam, numberParam } from "../../http/query-params";
import { defineRoute } from "../../http/route";
import { readChainPage, type ChainFilter, type ChainKey } from "../../market/chain";
import { parameterKey } from "../../edge-cache/derived-cache";
import { snapshotResponse } from "../../edge-cache/snapshot-response";
import { tradedScope } from "../../market/scopes";
import { encodeCursor, queryDigest } from "../../pagination/cursor";
import { OptionQuoteSchema, toOptionQuote } from "./option-contract";

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
export type Chain = z.infer<typeof ChainSchema>;

const int = (description: string) => intParam(0, 1_000_000_000, { description });

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
  ...dteParams({ maxBound: 3_650, maxDoc: `Maximum days to expiration (default minDte + ${DEFAULT_DTE_WINDOW}; 0 means unset).` }),
  limit: limitParam({
    description: `Contracts per page (default ${DEFAULT_CHAIN_LIMIT}); clamped to the plan's maximum rows (${STANDARD_LIMITS.maxRows}) with X-Limit-Clamped: true.`,
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
function chainFilter(symbol: string, q: ChainQueryInput, today: string, settled: 0 | 1 | 2): ChainFilter {
  orderedRange(["strikeMin", q.strikeMin], ["strikeMax", q.strikeMax]);
  const absDeltaMin = absDelta("deltaMin", q.deltaMin);
  const absDeltaMax = absDelta("deltaMax", q.deltaMax);
  orderedRange(["absolute delta", absDeltaMin], ["absolute delta", absDeltaMax], "reversed");
  const dte = dteWindow(q, { zeroMaxIsUnset: true });
  // An explicit expiration replaces the default window; explicit DTE bounds still apply.
  const window =
    q.expiration !== undefined && !dte.minGiven && dte.max === undefined
      ? null
      : { min: dte.min, max: dte.max ?? dte.min + DEFAULT_DTE_WINDOW };
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
    // An expired contract has no delta: a delta bound leaves it out, as it leaves out any other without one.
    unexpired: absDeltaMin !== undefined || absDeltaMax !== undefined ? { today, settled } : undefined,
    minOpenInterest: aliased(q, "minOI", "oiMin"),
    minVolume: aliased(q, "minVolume", "volumeMin"),
  };
}

/** Where a chain page continues: after this key, with page 1's spot. */
const CHAIN_POSITION = z.tuple([z.tuple([z.string(), z.number(), z.string(), z.string()]), z.number()]);

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
  caching: "snapshot",
  params: z.object({ symbol: tickerParam }),
  query: ChainQuery,
  response: { description: "One page of the chain.", schema: ChainSchema },
  errors: ["not_found", "invalid_range"],
  handler: async (c, { params, query }) => {
    const secrets = c.get("config").CURSOR_SECRET;
    const today = requestToday(c);
    const settled = requestSettlementPhase(c);
    const filter = chainFilter(params.symbol, query, today, settled);
    const limit = clampToPlan(c, query.limit ?? DEFAULT_CHAIN_LIMIT, c.get("account").limits.maxRows);
    // Bound to the parameters as sent and the page size (not to the date: a cursor survives midnight).
    const digest = await queryDigest({ symbol: params.symbol, query: { ...query, cursor: undefined }, limit });
    const position = query.cursor ? await cursorPosition(secrets, query.cursor, digest, CHAIN_POSITION) : null;

    const after: ChainKey | null = position?.[0] ?? null;
    return snapshotResponse(c, {
      name: await parameterKey(`chain:${params.symbol}`, { filter, after, limit, today }),
      // Greeks are served until each contract's settlement instant: the body differs before and after it.
      vary: `settled=${settled}`,
      // Its contracts' quotes, and the last prices and volumes trades change.
      scopes: [params.symbol, tradedScope(params.symbol)],
      compute: (read) => readChainPage(read, filter, after, limit),
      render: async ({ snapshot, value }): Promise<Chain> => {
        if (!value.exists) throw unknownSymbol(params.symbol);
        const page = value.rows.slice(0, limit);
        const last = page.at(-1);
        const spot = position?.[1] ?? page[0]?.underlyingPrice ?? value.underlyingPrice ?? 0;
        const truncated = value.rows.length > limit;
        const next: ChainKey | null = truncated && last ? [last.expiration, last.strike, last.side, last.root] : null;
        return {
          symbol: params.symbol,
          underlyingPrice: spot,
          asOf: isoTimestamp(snapshot.asOf),
          truncated,
          nextCursor: next ? await encodeCursor(secrets, [next, spot], digest) : null,
          contracts: page.map((r) => toOptionQuote(r, today, requestNow(c))),
        };
      },
    });
  },
});
