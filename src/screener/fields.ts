import { is, sql, type SQL } from "drizzle-orm";
import { PgColumn, type AnyPgColumn } from "drizzle-orm/pg-core";
import { screenerContracts as t } from "../db/schema";

/**
 * The screener's accepted filter and sort fields: the one table the validator, the query compiler,
 * the API description and docs/screener.md (`npm run docs:screener`) read. Every name a client may
 * send is a canonical name or one of its aliases (98 in all, the spec's list).
 */

export type FieldType = "number" | "integer" | "text" | "date" | "timestamp" | "boolean" | "set";

export interface ScreenerField {
  name: string;
  aliases: readonly string[];
  type: FieldType;
  unit?: string;
  description: string;
  /** What filters compare and sorts order by. */
  expr: SQL | AnyPgColumn;
  /** Integer "days from today" fields: the value n is compared as the date `expr` against today + n. */
  daysUntil?: true;
  /** Set fields: the accepted values (compared case-insensitively). */
  values?: readonly string[];
  /** Text compared as upper case (tickers), so equality and lists use the column's index. */
  upperCase?: true;
  /** Integer fields: the values a filter may compare with (the column's range, or days that keep today + n a date). */
  range?: readonly [min: number, max: number];
}

/** PostgreSQL `smallint` and `integer`: a parameter outside its column's type is an error of the statement, not "no match". */
export const SMALLINT_RANGE = [-32_768, 32_767] as const;
export const INTEGER_RANGE = [-2_147_483_648, 2_147_483_647] as const;
/** Days from today a "days until" filter may count: about 274 years either way, so today + n stays a date of years 0001-9999. */
export const DAYS_RANGE = [-100_000, 100_000] as const;

/** An integer field's range, from its column's SQL type; a field that has none is a mistake in this table. */
function integerRange(name: string, expr: SQL | AnyPgColumn, daysUntil: boolean): readonly [number, number] {
  if (daysUntil) return DAYS_RANGE;
  const sqlType = is(expr, PgColumn) ? expr.getSQLType() : undefined;
  if (sqlType === "smallint") return SMALLINT_RANGE;
  if (sqlType === "integer") return INTEGER_RANGE;
  throw new Error(`Screener field '${name}' is an integer without a known range (column type ${sqlType ?? "unknown"}).`);
}

const f = (
  name: string,
  type: FieldType,
  expr: SQL | AnyPgColumn,
  description: string,
  more: Partial<Omit<ScreenerField, "name" | "type" | "expr" | "description">> = {},
): ScreenerField => ({
  name,
  type,
  expr,
  description,
  aliases: [],
  ...more,
  ...(type === "integer" ? { range: more.range ?? integerRange(name, expr, more.daysUntil === true) } : {}),
});

const PCT = "percent (8 means 8%)";
const USD = "USD";
const USD_SHARE = "USD per share";
const SCORE = "score 1-5";

export const SCREENER_FIELDS: readonly ScreenerField[] = [
  // The contract
  f("symbol", "text", t.symbol, "Underlying ticker.", { upperCase: true }),
  f("symbols", "set", t.symbol, "Underlying tickers: `in`/`exclude` a list, or `eq` one.", { upperCase: true }),
  f("type", "set", t.type, "Option side.", { values: ["call", "put"] }),
  f("call", "boolean", sql`(${t.type} = 'call')`, "True for calls: `eq true` keeps only calls, `eq false` drops them."),
  f("put", "boolean", sql`(${t.type} = 'put')`, "True for puts: `eq true` keeps only puts, `eq false` drops them."),
  f("strike", "number", t.strike, "Strike price.", { unit: USD }),
  f("expiration", "date", t.expiration, "Expiration date (YYYY-MM-DD)."),
  f("dte", "integer", t.expiration, "Calendar days from today (America/New_York) to expiration.", {
    unit: "days",
    daysUntil: true,
    aliases: ["daysToExpiration", "expirationDays", "expiration_days"],
  }),
  f(
    "strikeFilter",
    "integer",
    t.strikeRank,
    "Nearness of the strike to spot within its expiration and side: 1 is the nearest strike, 2 the next, ….",
    {
      unit: "rank",
    },
  ),
  f("moneyness", "set", t.moneyness, "`atm` within 1% of spot, else `itm` or `otm` by side.", { values: ["itm", "atm", "otm"] }),
  f(
    "cushion",
    "number",
    t.cushion,
    "Distance from spot to the strike in the seller's favour: put (S−K)/S, call (K−S)/S; positive out of the money.",
    {
      unit: PCT,
    },
  ),
  // Prices and activity
  f("bidPrice", "number", t.bidPrice, "Bid.", { unit: USD_SHARE }),
  f("askPrice", "number", t.askPrice, "Ask.", { unit: USD_SHARE }),
  f("lastPrice", "number", t.lastPrice, "Last trade price.", { unit: USD_SHARE }),
  f("premium", "number", t.premium, "Mid of a two-sided market, else the last price.", { unit: USD_SHARE }),
  f("markOneDayAgo", "number", t.yesterdayMark, "The previous session's mark (row field `yesterdayMark`).", { unit: USD_SHARE }),
  f("bidAskSpreadPct", "number", t.spreadPct, "(ask − bid) / mid × 100.", {
    unit: PCT,
    aliases: ["bidAskSpread", "bidAskSpreadPercent", "spread", "spreadPct"],
  }),
  f("bidAskSpreadAbs", "number", t.spreadAbs, "ask − bid.", { unit: USD_SHARE, aliases: ["bidAskSpreadDollar", "spreadAbs"] }),
  f("volume", "integer", t.volume, "Contracts traded in the session.", { unit: "contracts" }),
  f("openInterest", "integer", t.openInterest, "Open contracts.", { unit: "contracts" }),
  f("liquidity", "integer", t.liquidity, "Open interest plus the session's volume.", { unit: "contracts" }),
  f("lastTradeDate", "timestamp", t.lastTradeDate, "Time of the contract's last trade (ISO 8601)."),
  f("lastUpdatedDate", "timestamp", t.lastUpdatedDate, "Time of the quote (ISO 8601)."),
  // Greeks and volatility
  f("delta", "number", t.delta, "Signed delta, -1 to 1."),
  f("gamma", "number", t.gamma, "Delta change per $1 move of the underlying."),
  f("theta", "number", t.theta, "Price change per calendar day.", { unit: USD_SHARE }),
  f("vega", "number", t.vega, "Price change per 1% IV change.", { unit: USD_SHARE }),
  f("impliedVolatility", "number", t.impliedVolatility, "The contract's implied volatility.", { unit: PCT, aliases: ["iv"] }),
  // Income metrics (ANALYTICS.md §5)
  f(
    "yieldPercent",
    "number",
    t.yieldPercent,
    "premium / collateral × 100; collateral is the strike for a put, the stock price for a call.",
    {
      unit: PCT,
    },
  ),
  f("annualizedReturn", "number", t.annualizedReturn, "yieldPercent × 365 / DTE (simple; DTE at least 1).", { unit: PCT }),
  f("probability", "number", t.probability, "Risk-neutral probability of expiring out of the money: N(d2) for a put, N(−d2) for a call.", {
    unit: PCT,
  }),
  f(
    "contractScore",
    "number",
    t.contractScore,
    "0-100: 40% probability, 30% annualized return (capped at 100%), 30% tradability (spread and open interest).",
    {
      unit: "score 0-100",
    },
  ),
  // 30-session history (today excluded from the baseline)
  f("thirtyDayAverageVolume", "number", t.thirtyDayAverageVolume, "Mean daily volume over the 30 sessions before today.", {
    unit: "contracts",
  }),
  f("thirtyDayAverageIV", "number", t.thirtyDayAverageIV, "Mean daily IV over the 30 sessions before today.", { unit: PCT }),
  f("thirtyDayAveragePremium", "number", t.thirtyDayAveragePremium, "Mean daily mark over the 30 sessions before today.", {
    unit: USD_SHARE,
  }),
  f(
    "volumeZScore30d",
    "number",
    t.volumeZScore30d,
    "(volume − 30-session mean) / sample std; undefined below 10 sessions or a flat history.",
    {
      unit: "standard deviations",
      aliases: ["volumeZScore"],
    },
  ),
  f("openInterestZScore30d", "number", t.openInterestZScore30d, "(open interest − 30-session mean) / sample std; as volumeZScore30d.", {
    unit: "standard deviations",
    aliases: ["openInterestZScore"],
  }),
  f("volumeStdDevDiff30d", "number", t.volumeStdDevDiff30d, "Volume minus its 30-session mean: the z-score's numerator, in contracts.", {
    unit: "contracts",
    aliases: ["volumeStdDevDiff"],
  }),
  f("openInterestStdDevDiff30d", "number", t.openInterestStdDevDiff30d, "Open interest minus its 30-session mean, in contracts.", {
    unit: "contracts",
    aliases: ["openInterestStdDevDiff"],
  }),
  f("volumeHistorySamples30d", "integer", t.volumeHistorySamples30d, "Sessions in the volume baseline (at most 30).", { unit: "sessions" }),
  f("openInterestHistorySamples30d", "integer", t.openInterestHistorySamples30d, "Sessions in the open-interest baseline (at most 30).", {
    unit: "sessions",
  }),
  f("premiumChange1dPct", "number", t.premiumChange1dPct, "(premium − previous mark) / previous mark × 100.", { unit: PCT }),
  f("premiumIncreasing", "boolean", t.premiumIncreasing, "The premium is above the previous session's mark."),
  f("premiumIncreasing30d", "boolean", t.premiumIncreasing30d, "The premium is above its 30-session average mark."),
  // Earnings
  f(
    "earnings",
    "boolean",
    t.earningsBeforeExpiration,
    "An earnings date falls between today and expiration; the field of `excludeEarnings`.",
  ),
  f("earningsDate", "date", t.earningsDate, "The company's next earnings date."),
  // Dividends
  f("dividendYield", "number", t.dividendYield, "Trailing dividend yield of the underlying.", { unit: PCT }),
  f("dividendFrequency", "text", t.dividendFrequency, "Quarterly, Monthly, …"),
  f("nextDividendAmount", "number", t.nextDividendAmount, "Amount of the next dividend.", { unit: USD_SHARE, aliases: ["dividendamount"] }),
  f("nextDividendDate", "date", t.nextDividendDate, "Next ex-dividend date.", { aliases: ["dividenddate", "exdividenddate"] }),
  f(
    "nextDividendDays",
    "integer",
    t.nextDividendDate,
    "Calendar days from today to the next ex-dividend date (early-assignment risk of a covered call).",
    {
      unit: "days",
      daysUntil: true,
      aliases: ["dividenddays"],
    },
  ),
  f("nextDividendPaymentDate", "date", t.nextDividendPaymentDate, "Payment date of the next dividend.", {
    aliases: ["dividendpaymentdate"],
  }),
  f("nextDividendIsEstimated", "boolean", t.nextDividendIsEstimated, "The next dividend is projected, not declared.", {
    aliases: ["dividendIsEstimated"],
  }),
  // The underlying
  f("symbolType", "set", t.assetType, "Kind of underlying.", { values: ["stock", "etf", "index"], aliases: ["stockType"] }),
  f("sector", "text", t.sector, "Sector of the company."),
  f("industry", "text", t.industry, "Industry of the company."),
  f("rating", "text", t.rating, "Analyst-style letter rating (A+ … F)."),
  f("consensus", "text", t.consensus, "Analyst consensus (Strong Buy … Sell)."),
  f("stockPrice", "number", t.stockPrice, "Underlying price at the snapshot.", { unit: USD }),
  f("marketCap", "number", t.marketCap, "Market capitalisation.", { unit: USD }),
  f("peRatio", "number", t.peRatio, "Price / earnings."),
  f("rsi", "number", t.rsi, "14-session relative strength index of the closes (simple averages), 0-100."),
  f("stockIV", "number", t.stockIV, "The underlying's 30-day at-the-money IV.", { unit: PCT }),
  f("ivr", "number", t.ivr, "IV rank against the 52-week high and low, 0-100."),
  f("lowestStockIV", "number", t.lowestStockIV, "52-week low of the underlying's IV.", { unit: PCT }),
  f("highestStockIV", "number", t.highestStockIV, "52-week high of the underlying's IV.", { unit: PCT }),
  f("fiftyTwoWeekLow", "number", t.fiftyTwoWeekLow, "52-week low of the stock.", { unit: USD }),
  f("fiftyTwoWeekHigh", "number", t.fiftyTwoWeekHigh, "52-week high of the stock.", { unit: USD }),
  f("fiftyDayAverage", "number", t.fiftyDayAverage, "Mean close of the last 50 sessions.", { unit: USD }),
  f("twoHundredDayAverage", "number", t.twoHundredDayAverage, "Mean close of the last 200 sessions.", { unit: USD }),
  f("overallScore", "integer", t.overallScore, "Overall fundamental score.", { unit: SCORE }),
  f("discountedCashFlowScore", "integer", t.discountedCashFlowScore, "Discounted-cash-flow score.", { unit: SCORE }),
  f("returnOnEquityScore", "integer", t.returnOnEquityScore, "Return-on-equity score.", { unit: SCORE }),
  f("returnOnAssetsScore", "integer", t.returnOnAssetsScore, "Return-on-assets score.", { unit: SCORE }),
  f("debtToEquityScore", "integer", t.debtToEquityScore, "Debt-to-equity score.", { unit: SCORE }),
  f("priceToEarningsScore", "integer", t.priceToEarningsScore, "Price-to-earnings score.", { unit: SCORE }),
  f("priceToBookScore", "integer", t.priceToBookScore, "Price-to-book score.", { unit: SCORE }),
];

const byName = new Map<string, ScreenerField>();
for (const field of SCREENER_FIELDS) for (const name of [field.name, ...field.aliases]) byName.set(name, field);

/** Every accepted field name (canonical names and aliases), sorted. */
export const ACCEPTED_FIELD_NAMES: readonly string[] = [...byName.keys()].sort();

/** The field a client's name means; names are case-sensitive, as the spec lists them. */
export function screenerField(name: string): ScreenerField | undefined {
  return byName.get(name);
}
