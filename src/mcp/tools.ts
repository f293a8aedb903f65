import type { RouteSpec } from "../http/route";
import type { BatchQuotes } from "../routes/quotes-and-options/batch-quotes";
import { batchQuotesRoute } from "../routes/quotes-and-options/batch-quotes";
import { chainRoute } from "../routes/quotes-and-options/chain";
import { equityQuoteRoute } from "../routes/quotes-and-options/equity-quote";
import { expirationsRoute } from "../routes/quotes-and-options/expirations";
import { screenRoute, type ScreenerResponse } from "../routes/screener/screen";
import { ivContextRoute } from "../routes/volatility/iv-context";
import { topIvRoute, topIvrRoute } from "../routes/volatility/top-iv";
import { gexRoute, type GexProfileBody } from "../routes/gamma-exposure/gex";
import { gexHeatmapRoute, type GexHeatmapBody } from "../routes/gamma-exposure/heatmap";
import { flowRoute } from "../routes/flow/flow";
import { netFlowRoute, type NetFlow } from "../routes/flow/net-flow";
import { earningsRoute } from "../routes/calendars/earnings";
import { dividendsRoute } from "../routes/calendars/dividends";
import { HEATMAP_CELLS, heatmapSummary, NET_FLOW_POINTS, nearSpotProfile, PROFILE_STRIKES, thinnedNetFlow } from "./summaries";

/** The most a tool result holds, as JSON text (~8k tokens): list sizes below are chosen to stay under it. */
export const MAX_RESULT_CHARS = 32_000;

/** One MCP tool: the REST route it calls, what it tells an assistant, and how its answer is kept small. */
export interface McpTool {
  name: string;
  route: RouteSpec;
  description: string;
  /** The route's page-size parameter as the tool bounds it: its default here and the most one call may ask. */
  size?: { param: "limit" | "pageSize"; default: number; max: number };
  /** An answer that can outgrow the bound, summarised. */
  shrink?: (body: never) => unknown;
  /** For a body without `asOf`: the newest time it carries (null when it carries none). */
  asOf?: (body: never) => string | null;
}

const newest = (times: (string | null | undefined)[]): string | null =>
  times.reduce<string | null>((a, t) => (t && (a === null || t > a) ? t : a), null);

const UNITS = "IV in percent (22.37 means 22.37%); prices in USD (options per share)";

/** Every tool of `/mcp`, in the order `tools/list` gives them (docs/decisions.md says why each exists). */
export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: "get_chain",
    route: chainRoute,
    description:
      `Option chain of one underlying with quotes and Greeks: ${UNITS}; delta in [-1, 1], gamma per $1 move, theta in USD per day, ` +
      "vega in USD per 1% IV. Default window 0-45 days to expiration. At most 50 contracts a call (default 25): pass `nextCursor` back as `cursor` for the next page.",
    size: { param: "limit", default: 25, max: 50 },
  },
  {
    name: "get_option_quotes",
    route: batchQuotesRoute,
    description: `Quotes of up to 20 option contracts by OCC symbol (comma-separated \`symbols\`, e.g. SPY261218C00600000), units as the chain; unknown symbols are listed in \`missing\`. ${UNITS}.`,
    asOf: (body: BatchQuotes) => newest(body.quotes.map((q) => q.asOf)),
  },
  {
    name: "get_expirations",
    route: expirationsRoute,
    description: "Listed expiration dates of an underlying (YYYY-MM-DD) with days to expiration; default 0-365 days.",
  },
  {
    name: "get_equity_quote",
    route: equityQuoteRoute,
    description: "Latest price of a stock, ETF or index (USD) with its name.",
  },
  {
    name: "screen_contracts",
    route: screenRoute,
    description:
      "Screen option contracts across underlyings: `symbols`, `type`, DTE, delta, open-interest, yield and spread bounds, and `filters` of " +
      "{field, operation, value} (98 fields, 20 operations; a `sort` operation orders rows). impliedVolatility and stockIV in percent, ivr 0-100, " +
      "yieldPercent and bidAskSpreadPct in percent, prices in USD. At most 10 rows a call: ask the next `page` while `hasMore`.",
    size: { param: "pageSize", default: 10, max: 10 },
    asOf: (body: ScreenerResponse) => newest(body.results.map((r) => r.lastUpdatedDate)),
  },
  {
    name: "get_iv_context",
    route: ivContextRoute,
    description:
      "Implied-volatility context of one underlying: currentIV (30-day at-the-money, percent), IV rank and IV percentile (0-100) over 52 weeks, the 52-week IV high and low (percent).",
  },
  {
    name: "get_top_iv",
    route: topIvRoute,
    description:
      "Underlyings with the highest implied volatility (stockIV in percent, ivr 0-100, ivChange1w in IV points); IV above 200% excluded. At most 50 (default 20).",
    size: { param: "limit", default: 20, max: 50 },
    asOf: () => null,
  },
  {
    name: "get_top_ivr",
    route: topIvrRoute,
    description:
      "Underlyings with the highest 52-week IV rank (0-100), stockIV in percent; IV above 200% excluded. At most 50 (default 20).",
    size: { param: "limit", default: 20, max: 50 },
    asOf: () => null,
  },
  {
    name: "get_gex",
    route: gexRoute,
    description:
      "Dealer gamma exposure (GEX) of one underlying: netGex, totalCallGex, totalPutGex and per-strike values in dollars per 1% move of the underlying; " +
      `gamma flip, call wall and put wall in USD; regime. Default 0-60 days to expiration. Strikes: the ${PROFILE_STRIKES} nearest spot (flip and walls use all).`,
    shrink: (body: GexProfileBody) => nearSpotProfile(body),
  },
  {
    name: "get_gex_heatmap",
    route: gexHeatmapRoute,
    description:
      "Summary of the strike-by-expiration GEX heatmap (dollars per 1% move): gamma flip and walls (USD), call/put/net GEX per expiration, " +
      `and the ${HEATMAP_CELLS} strike-expiration cells of largest absolute net GEX. Default strikes within ±35% of spot, 0-60 days to expiration.`,
    shrink: (body: GexHeatmapBody) => heatmapSummary(body),
  },
  {
    name: "get_flow",
    route: flowRoute,
    description:
      "Options flow: recent trade prints of the last 7 days with premium (USD), size, fill side, sentiment, sweep/block/split and impliedVolatility (percent). " +
      "Default: the newest session, premium at least $10,000, largest premium first. Market-wide queries span at most 3 sessions. At most 50 prints a call (default 25).",
    size: { param: "limit", default: 25, max: 50 },
  },
  {
    name: "get_net_flow",
    route: netFlowRoute,
    description: `Cumulative net call and put premium (USD) and net volume through the session, for one ticker (\`symbol\`): at most ${NET_FLOW_POINTS} minute points evenly spaced, the last included, and the totals.`,
    shrink: (body: NetFlow) => thinnedNetFlow(body),
    asOf: (body: NetFlow) => body.points.at(-1)?.t ?? null,
  },
  {
    name: "get_earnings",
    route: earningsRoute,
    description:
      "Earnings calendar: dates, timing (bmo before the open, amc after the close), EPS and revenue estimates. Default window: 30 days from today. At most 100 events a call (default 25): pass `nextCursor` back as `cursor`.",
    size: { param: "limit", default: 25, max: 100 },
    asOf: () => null,
  },
  {
    name: "get_dividends",
    route: dividendsRoute,
    description:
      "Dividend calendar: ex-dates, pay dates, cash amounts (USD) and yield (percent). Default window: 30 days from today. At most 100 events a call (default 25): pass `nextCursor` back as `cursor`.",
    size: { param: "limit", default: 25, max: 100 },
    asOf: () => null,
  },
];
