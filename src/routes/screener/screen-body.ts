import { z } from "zod";
import { aliased, orderedRange } from "../../http/input-checks";
import type { FilterRule } from "../../screener/compile";
import { INTEGER_RANGE } from "../../screener/fields";

/** Bounds on what one screen may ask for (docs/decisions.md). */
const MAX_FILTERS = 50;
/** Deepest page served: offsets beyond it would scan more than any screen should. */
export const MAX_PAGE = 1000;
const MAX_DTE = 3650;

const int = (description: string) => z.int().min(-1_000_000).max(1_000_000).optional().describe(description);
const dte = (description: string) => z.int().min(0).max(MAX_DTE).optional().describe(description);
const delta = (description: string) => z.number().min(-1).max(1).optional().describe(description);
const num = (description: string) => z.number().min(0).max(1e15).optional().describe(description);
/** A bound on an `integer` column (open interest): its range, as the filter rule it stands for enforces. */
const contracts = (description: string) => z.number().min(0).max(INTEGER_RANGE[1]).optional().describe(description);
const symbolList = (description: string) =>
  z
    .union([z.array(z.string().max(12)).max(500), z.string().max(6_000)])
    .optional()
    .describe(description);

const FilterRuleSchema = z.object({
  field: z.string().max(100).describe("A field of docs/screener.md (canonical name or alias)."),
  operation: z.string().max(40).describe("One of the 20 operations."),
  value: z.unknown().optional().describe("Threshold, list, pattern, mode or sort direction, by operation."),
});

/** The request body: every field optional; unknown fields are refused so a misspelt bound cannot pass silently. */
export const ScreenBody = z.strictObject({
  type: z.enum(["call", "put"]).optional().describe("Only calls or puts. Alias: optionType."),
  optionType: z.enum(["call", "put"]).optional().describe("Alias of type."),
  symbols: symbolList("Underlyings to scan: an array or a comma-separated string. Aliases: tickers, symbol."),
  tickers: symbolList("Alias of symbols."),
  symbol: symbolList("Alias of symbols."),
  dteMin: dte("Days to expiration, at least. Alias: minDte."),
  minDte: dte("Alias of dteMin."),
  dteMax: dte("Days to expiration, at most. Alias: maxDte."),
  maxDte: dte("Alias of dteMax."),
  deltaMin: delta("Signed delta, at least (-0.30 for puts of at most 30 delta). Alias: minDelta."),
  minDelta: delta("Alias of deltaMin."),
  deltaMax: delta("Signed delta, at most. Alias: maxDelta."),
  maxDelta: delta("Alias of deltaMax."),
  openInterestMin: contracts("Open interest, at least. Alias: minOpenInterest."),
  minOpenInterest: contracts("Alias of openInterestMin."),
  yieldPercentMin: z.number().min(-1e6).max(1e6).optional().describe("Return on collateral in percent, at least. Alias: minYieldPercent."),
  minYieldPercent: z.number().min(-1e6).max(1e6).optional().describe("Alias of yieldPercentMin."),
  bidAskSpreadPctMax: num("Spread in percent of mid, at most (8 means 8%). Alias: maxBidAskSpreadPct."),
  maxBidAskSpreadPct: num("Alias of bidAskSpreadPctMax."),
  page: z
    .int()
    .min(-1_000_000)
    .max(MAX_PAGE)
    .optional()
    .describe(`Page, 1-based, at most ${MAX_PAGE}; wins over the query's when above 0.`),
  pageSize: int("Rows per page, at most 100 (larger is capped); wins over perPage and the query's when above 0."),
  perPage: int("Alias of pageSize."),
  filters: z.array(FilterRuleSchema).max(MAX_FILTERS).optional().describe(`Filter and sort rules, at most ${MAX_FILTERS}.`),
});
export type ScreenBodyInput = z.output<typeof ScreenBody>;

function symbolsOf(body: ScreenBodyInput): string[] | undefined {
  const given = [aliased(body, "symbols", "tickers", "body"), body.symbol].filter((v) => v !== undefined);
  const names = given.flatMap((v) => (Array.isArray(v) ? v : v.split(","))).map((s) => s.trim());
  // An empty list restricts nothing, as if the field were absent.
  return names.some((s) => s !== "") ? names.filter((s) => s !== "") : undefined;
}

/** The body's top-level bounds as the filter rules they are shorthand for (same validation, same SQL). */
function topLevelRules(body: ScreenBodyInput): FilterRule[] {
  const rules: FilterRule[] = [];
  const add = (field: string, operation: string, value: unknown) => {
    if (value !== undefined) rules.push({ field, operation, value });
  };
  add("type", "eq", aliased(body, "type", "optionType", "body"));
  add("symbols", "in", symbolsOf(body));
  const dteMin = aliased(body, "dteMin", "minDte", "body");
  const dteMax = aliased(body, "dteMax", "maxDte", "body");
  const deltaMin = aliased(body, "deltaMin", "minDelta", "body");
  const deltaMax = aliased(body, "deltaMax", "maxDelta", "body");
  orderedRange(["dteMin", dteMin], ["dteMax", dteMax]);
  orderedRange(["deltaMin", deltaMin], ["deltaMax", deltaMax]);
  add("dte", "gte", dteMin);
  add("dte", "lte", dteMax);
  add("delta", "gte", deltaMin);
  add("delta", "lte", deltaMax);
  // Open interest is whole contracts: at least 100.5 is at least 101.
  const openInterestMin = aliased(body, "openInterestMin", "minOpenInterest", "body");
  add("openInterest", "gte", openInterestMin === undefined ? undefined : Math.ceil(openInterestMin));
  add("yieldPercent", "gte", aliased(body, "yieldPercentMin", "minYieldPercent", "body"));
  add("bidAskSpreadPct", "lte", aliased(body, "bidAskSpreadPctMax", "maxBidAskSpreadPct", "body"));
  return rules;
}

/** Every rule of a screen: the top-level bounds, then the body's filters in their order. */
export function screenRules(body: ScreenBodyInput): FilterRule[] {
  return [...topLevelRules(body), ...(body.filters ?? [])];
}
