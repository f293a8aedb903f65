import { z } from "zod";
import { round } from "../../domain/round";
import { isoTimestamp } from "../../db/timestamps";
import { ApiError } from "../../http/errors";
import { intParam } from "../../http/query-params";
import { withinQueryBudget } from "../../http/query-timeout";
import { requestNow } from "../../http/request-clock";
import { defineRoute } from "../../http/route";
import { pageBudgetMs, runScreen, SCREENER_COUNT_CAP, type ScreenerRow } from "../../market/screener";
import { compileScreen, ScreenRuleError } from "../../screener/compile";
import { fieldTableMarkdown, operationTableMarkdown } from "../../screener/reference";
import { MAX_PAGE, ScreenBody, screenRules, type ScreenBodyInput } from "./screen-body";
import { services } from "../../services";

const DEFAULT_PAGE_SIZE = 10;
/** Page size cap and result cap, whatever the plan (spec). */
const MAX_PAGE_SIZE = 100;

const num = (description: string) => z.number().describe(`${description} 0 when the row cannot define it.`);
const str = (description: string) => z.string().nullable().describe(`${description} Null when the underlying has none.`);
const day = (description: string) => z.iso.date().nullable().describe(description);

export const ScreenerRowSchema = z.object({
  symbol: z.string().describe("Underlying ticker."),
  type: z.enum(["call", "put"]),
  optionKey: z.string().describe("OCC symbol, compact."),
  industry: str("Industry."),
  sector: str("Sector."),
  rating: str("Letter rating."),
  consensus: str("Analyst consensus."),
  dividendFrequency: str("Quarterly, Monthly, …."),
  logoUrl: z.string().describe("URL of an image."),
  expiration: z.iso.datetime().describe("Expiration day at 00:00 UTC."),
  earningsDate: z.iso.datetime().nullable().describe("Next earnings day at 00:00 UTC; null when none is scheduled."),
  lastUpdatedDate: z.iso.datetime().describe("Time of the quote."),
  lastTradeDate: z.iso.datetime().nullable().describe("Time of the last trade; null when the contract never traded."),
  lowestStockIVDate: day("Day of the 52-week IV low."),
  highestStockIVDate: day("Day of the 52-week IV high."),
  nextDividendDate: day("Next ex-dividend date."),
  nextDividendPaymentDate: day("Its payment date."),
  nextDividendIsEstimated: z.boolean(),
  strike: z.number().describe("USD."),
  yieldPercent: num("premium / collateral × 100 (strike for puts, stock price for calls)."),
  bidPrice: num("USD per share."),
  askPrice: num("USD per share."),
  lastPrice: num("USD per share."),
  premium: num("Mid of a two-sided market, else the last price; USD per share."),
  volume: num("Contracts."),
  openInterest: num("Contracts."),
  delta: num("Signed."),
  gamma: num("Per $1."),
  theta: num("USD per share per calendar day."),
  vega: num("USD per share per 1% IV."),
  impliedVolatility: num("Percent."),
  annualizedReturn: num("yieldPercent × 365 / DTE, percent."),
  probability: num("Risk-neutral probability of expiring out of the money, percent."),
  yesterdayMark: num("Previous session's mark, USD per share."),
  thirtyDayAverageVolume: num("Contracts per session, 30 sessions before today."),
  thirtyDayAverageIV: num("Percent."),
  thirtyDayAveragePremium: num("USD per share."),
  volumeZScore30d: num("Standard deviations; 0 below 10 baseline sessions or with a flat history."),
  openInterestZScore30d: num("Standard deviations; as volumeZScore30d."),
  volumeStdDev30d: num("Sample standard deviation of the baseline, contracts."),
  openInterestStdDev30d: num("Contracts."),
  volumeHistorySamples30d: num("Sessions in the baseline."),
  openInterestHistorySamples30d: num("Sessions in the baseline."),
  premiumChange1dPct: z.number().nullable().describe("Percent against the previous mark; null without one."),
  contractScore: num("0-100 (docs/screener.md)."),
  stockPrice: num("USD."),
  marketCap: num("USD."),
  peRatio: num("Price / earnings."),
  rsi: num("14-session RSI, 0-100."),
  stockIV: num("30-day ATM IV, percent."),
  ivr: num("IV rank, 0-100."),
  lowestStockIV: num("52-week IV low, percent."),
  highestStockIV: num("52-week IV high, percent."),
  fiftyTwoWeekLow: num("USD."),
  fiftyTwoWeekHigh: num("USD."),
  fiftyDayAverage: num("USD."),
  twoHundredDayAverage: num("USD."),
  dividendYield: num("Percent."),
  nextDividendAmount: num("USD per share."),
  overallScore: z.int(),
  discountedCashFlowScore: z.int(),
  returnOnEquityScore: z.int(),
  returnOnAssetsScore: z.int(),
  debtToEquityScore: z.int(),
  priceToEarningsScore: z.int(),
  priceToBookScore: z.int(),
});
type ScreenerResultRow = z.infer<typeof ScreenerRowSchema>;

export const ScreenerResponseSchema = z.object({
  count: z
    .int()
    .describe(`Matches, capped at ${SCREENER_COUNT_CAP}; -1 when counting ran out of its time budget (results are still returned).`),
  countCapped: z.boolean().describe(`True when count reached ${SCREENER_COUNT_CAP} (a lower bound; use hasMore).`),
  hasMore: z.boolean().describe("More pages exist."),
  results: z.array(ScreenerRowSchema),
});
export type ScreenerResponse = z.infer<typeof ScreenerResponseSchema>;

/** A number the row cannot define is 0 on the wire (docs/screener.md). */
const n = (x: number | null, places = 6) => round(x, places) ?? 0;
const midnight = (date: string | null) => (date === null ? null : `${date}T00:00:00.000Z`);

function toRow(r: ScreenerRow): ScreenerResultRow {
  return {
    symbol: r.symbol,
    type: r.type,
    optionKey: r.optionKey,
    industry: r.industry,
    sector: r.sector,
    rating: r.rating,
    consensus: r.consensus,
    dividendFrequency: r.dividendFrequency,
    logoUrl: r.logoUrl,
    expiration: midnight(r.expiration) as string,
    earningsDate: midnight(r.earningsDate),
    lastUpdatedDate: isoTimestamp(r.lastUpdatedDate) as string,
    lastTradeDate: isoTimestamp(r.lastTradeDate),
    lowestStockIVDate: r.lowestStockIVDate,
    highestStockIVDate: r.highestStockIVDate,
    nextDividendDate: r.nextDividendDate,
    nextDividendPaymentDate: r.nextDividendPaymentDate,
    nextDividendIsEstimated: r.nextDividendIsEstimated,
    strike: r.strike,
    yieldPercent: n(r.yieldPercent),
    bidPrice: n(r.bidPrice),
    askPrice: n(r.askPrice),
    lastPrice: n(r.lastPrice),
    premium: n(r.premium),
    volume: n(r.volume),
    openInterest: n(r.openInterest),
    delta: n(r.delta),
    gamma: n(r.gamma, 8),
    theta: n(r.theta),
    vega: n(r.vega),
    impliedVolatility: n(r.impliedVolatility, 4),
    annualizedReturn: n(r.annualizedReturn),
    probability: n(r.probability),
    yesterdayMark: n(r.yesterdayMark),
    thirtyDayAverageVolume: n(r.thirtyDayAverageVolume, 4),
    thirtyDayAverageIV: n(r.thirtyDayAverageIV, 4),
    thirtyDayAveragePremium: n(r.thirtyDayAveragePremium),
    volumeZScore30d: n(r.volumeZScore30d),
    openInterestZScore30d: n(r.openInterestZScore30d),
    volumeStdDev30d: n(r.volumeStdDev30d, 4),
    openInterestStdDev30d: n(r.openInterestStdDev30d, 4),
    volumeHistorySamples30d: r.volumeHistorySamples30d,
    openInterestHistorySamples30d: r.openInterestHistorySamples30d,
    premiumChange1dPct: round(r.premiumChange1dPct, 6),
    contractScore: n(r.contractScore, 2),
    stockPrice: n(r.stockPrice),
    marketCap: n(r.marketCap, 0),
    peRatio: n(r.peRatio, 4),
    rsi: n(r.rsi, 4),
    stockIV: n(r.stockIV, 4),
    ivr: n(r.ivr, 4),
    lowestStockIV: n(r.lowestStockIV, 4),
    highestStockIV: n(r.highestStockIV, 4),
    fiftyTwoWeekLow: n(r.fiftyTwoWeekLow),
    fiftyTwoWeekHigh: n(r.fiftyTwoWeekHigh),
    fiftyDayAverage: n(r.fiftyDayAverage, 4),
    twoHundredDayAverage: n(r.twoHundredDayAverage, 4),
    dividendYield: n(r.dividendYield, 4),
    nextDividendAmount: n(r.nextDividendAmount),
    overallScore: r.overallScore ?? 0,
    discountedCashFlowScore: r.discountedCashFlowScore ?? 0,
    returnOnEquityScore: r.returnOnEquityScore ?? 0,
    returnOnAssetsScore: r.returnOnAssetsScore ?? 0,
    debtToEquityScore: r.debtToEquityScore ?? 0,
    priceToEarningsScore: r.priceToEarningsScore ?? 0,
    priceToBookScore: r.priceToBookScore ?? 0,
  };
}

/** The body's value when above 0, else the query's (spec). */
const bodyFirst = (body: number | undefined, query: number | undefined) => (body !== undefined && body > 0 ? body : query);

function pagination(body: ScreenBodyInput, query: { page?: number; pageSize?: number }): { page: number; pageSize: number } {
  const bodyPageSize = bodyFirst(body.pageSize, body.perPage);
  const page = bodyFirst(body.page, query.page) ?? 1;
  const pageSize = Math.min(bodyFirst(bodyPageSize, query.pageSize) ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return { page, pageSize };
}

/** The body's rules as the screener applies them; a rule it cannot apply is the client's 400. */
function compiled(input: ScreenBodyInput, now: Date) {
  try {
    return compileScreen(screenRules(input), now);
  } catch (err) {
    if (err instanceof ScreenRuleError) throw new ApiError("invalid_body", err.message);
    throw err;
  }
}

export const screenRoute = defineRoute({
  method: "post",
  path: "/v1/contracts/screen",
  operationId: "screenContracts",
  summary: "Contract screener",
  description:
    "Option contracts matching every filter rule, in the order of the sort rules (default: option key; with one underlying " +
    `pinned, expiration then strike), the option key breaking ties. Pages of at most ${MAX_PAGE_SIZE}, whatever the plan. ` +
    "A page past its time budget gives 503 query_timeout with Retry-After. " +
    "A filter rule is `{field, operation, value}`; the fields and operations:\n\n" +
    fieldTableMarkdown() +
    "\n\n" +
    operationTableMarkdown(),
  tags: ["Screener"],
  access: "entitled",
  query: z.object({
    page: intParam(1, MAX_PAGE, { description: `Page, 1-${MAX_PAGE} (default 1); the body's page wins when above 0.` }),
    pageSize: intParam(1, Number.MAX_SAFE_INTEGER, {
      description: `Rows per page, 1-${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}); above ${MAX_PAGE_SIZE} silently capped; the body's pageSize wins when above 0.`,
      default: DEFAULT_PAGE_SIZE,
    }),
  }),
  body: ScreenBody,
  response: { description: "A page of matching contracts.", schema: ScreenerResponseSchema },
  errors: ["invalid_body", "invalid_range", "query_timeout"],
  handler: async (c, { query, body }) => {
    const input = body ?? {};
    const { page, pageSize } = pagination(input, query);
    const screen = compiled(input, requestNow(c));
    const { QUERY_TIMEOUT_MS, SCREENER_COUNT_BUDGET_MS } = c.get("config");
    const { rows, count } = await withinQueryBudget(
      runScreen(services(c).market, screen, pageSize + 1, (page - 1) * pageSize, {
        countMs: SCREENER_COUNT_BUDGET_MS,
        pageMs: pageBudgetMs(QUERY_TIMEOUT_MS, SCREENER_COUNT_BUDGET_MS),
      }),
    );
    return {
      count: count ?? -1,
      countCapped: count !== null && count >= SCREENER_COUNT_CAP,
      hasMore: rows.length > pageSize,
      results: rows.slice(0, pageSize).map(toRow),
    };
  },
});
