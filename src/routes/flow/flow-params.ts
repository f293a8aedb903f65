import { z } from "zod";
import { flowWindow, type FlowWindowRequest, RETENTION_DAYS } from "../../domain/flow-window";
import { STANDARD_LIMITS } from "../../domain/plans";
import { TICKER, tickerParam } from "../../domain/symbols";
import { ApiError } from "../../http/errors";
import { aliased } from "../../http/input-checks";
import { dateParam, numberParam } from "../../http/query-params";
import type { FlowSelection } from "../../market/flow";

export const DEFAULT_MIN_PREMIUM = 10_000;

/** A ticker parameter where a blank value means "not given". */
export const optionalTicker = (description: string) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), tickerParam.optional().describe(description));

export const flowWindowShape = {
  from: dateParam.describe(
    `First day (YYYY-MM-DD, ET); a weekend or holiday starts at the next session. More than ${RETENTION_DAYS} days before today's ET date (the retention), or after the newest session, gives 400 out_of_range. Alias: fromDate.`,
  ),
  fromDate: dateParam.describe("Alias of from."),
  to: dateParam.describe("Last session (YYYY-MM-DD, ET); past the newest session it is cut back to it. Alias: toDate."),
  toDate: dateParam.describe("Alias of to."),
};

export const minPremiumParam = numberParam(
  {
    description: `Smallest premium counted, USD (default ${DEFAULT_MIN_PREMIUM}; smaller values are allowed).`,
    default: DEFAULT_MIN_PREMIUM,
  },
  { min: 0 },
);

export interface FlowWindowQuery {
  from?: string;
  fromDate?: string;
  to?: string;
  toDate?: string;
}

/** The window of a flow request, or the spec's 400 for it. */
export function requestedWindow(q: FlowWindowQuery, rules: Omit<FlowWindowRequest, "from" | "to">) {
  const from = aliased(q, "from", "fromDate");
  const window = flowWindow({ ...rules, from, to: aliased(q, "to", "toDate") });
  if (!window.ok) throw new ApiError(window.error, window.message);
  return { ...window, requestedFrom: from };
}

/** A `from` after the newest session in the feed is out of range (known once the query has read it). */
export function rejectFromAfterNewest(from: string | undefined, newest: string | null): void {
  if (from !== undefined && newest !== null && from > newest) {
    throw new ApiError("out_of_range", `from (${from}) is after the newest session in the feed (${newest}).`);
  }
}

export const enumParam = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z.enum(values).optional().describe(description);
const symbolList = (description: string) => z.string().max(400).optional().describe(description);

/** Which prints a flow request selects, whatever window it reads: `/v1/flow`'s parameters, and the `flow` stream's. */
export const flowSelectionShape = {
  symbol: optionalTicker("One underlying. Alias: ticker."),
  ticker: optionalTicker("Alias of symbol."),
  symbols: symbolList(`Comma-separated underlyings, at most ${STANDARD_LIMITS.flowSymbols}. Alias: tickers.`),
  tickers: symbolList("Alias of symbols."),
  sentiment: enumParam(["bullish", "bearish", "neutral"], "Only this sentiment (neutral includes prints without a direction)."),
  side: enumParam(["ask", "bid", "mid"], "Only this fill side."),
  type: enumParam(["call", "put"], "Only calls or puts. Alias: optionType."),
  optionType: enumParam(["call", "put"], "Alias of type."),
  executionType: enumParam(["sweep", "block", "split"], "Only this execution type. Alias: execution."),
  execution: enumParam(["sweep", "block", "split"], "Alias of executionType."),
  minPremium: minPremiumParam,
};
export const FlowSelectionQuery = z.object(flowSelectionShape);
type FlowSelectionInput = z.infer<typeof FlowSelectionQuery>;

/** The underlyings asked for (symbol, ticker, symbols, tickers together), distinct; more than the plan allows is a 400. */
function requestedTickers(q: FlowSelectionInput, max: number): string[] {
  const one = aliased(q, "symbol", "ticker");
  const list = aliased(q, "symbols", "tickers");
  const names = (list ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const name of names) {
    if (!TICKER.test(name))
      throw new ApiError("invalid_parameter", `Invalid query parameter 'symbols': '${name.slice(0, 12)}' is not a ticker.`);
  }
  const tickers = [...new Set([...(one ? [one] : []), ...names])];
  if (tickers.length > max)
    throw new ApiError("invalid_parameter", `Invalid query parameter 'symbols': at most ${max} symbols, got ${tickers.length}.`);
  return tickers;
}

/** A validated selection with its aliases resolved; more tickers than `maxSymbols` is the 400 of `requestedTickers`. */
export function flowSelection(q: FlowSelectionInput, maxSymbols: number): FlowSelection {
  return {
    tickers: requestedTickers(q, maxSymbols),
    sentiment: q.sentiment,
    side: q.side,
    optionType: aliased(q, "type", "optionType"),
    executionType: aliased(q, "executionType", "execution"),
    minPremium: q.minPremium ?? DEFAULT_MIN_PREMIUM,
  };
}
