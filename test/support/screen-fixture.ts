import { screenRoute, type ScreenerResponse } from "../../src/routes/screener/screen";
import { contractBody } from "./contract";
import { marketSql } from "./market-db";
import { call } from "./worker";

/** The spec's "Accepted filter and sort fields (98)", copied from spec/options-data-service.md. */
export const SPEC_FIELDS =
  "annualizedReturn, askPrice, bidAskSpread, bidAskSpreadAbs, bidAskSpreadDollar, bidAskSpreadPct, bidAskSpreadPercent, bidPrice, call, consensus, contractScore, cushion, daysToExpiration, debtToEquityScore, delta, discountedCashFlowScore, dividendFrequency, dividendIsEstimated, dividendYield, dividendamount, dividenddate, dividenddays, dividendpaymentdate, dte, earnings, earningsDate, exdividenddate, expiration, expirationDays, expiration_days, fiftyDayAverage, fiftyTwoWeekHigh, fiftyTwoWeekLow, gamma, highestStockIV, impliedVolatility, industry, iv, ivr, lastPrice, lastTradeDate, lastUpdatedDate, liquidity, lowestStockIV, markOneDayAgo, marketCap, moneyness, nextDividendAmount, nextDividendDate, nextDividendDays, nextDividendIsEstimated, nextDividendPaymentDate, openInterest, openInterestHistorySamples30d, openInterestStdDevDiff, openInterestStdDevDiff30d, openInterestZScore, openInterestZScore30d, overallScore, peRatio, premium, premiumChange1dPct, premiumIncreasing, premiumIncreasing30d, priceToBookScore, priceToEarningsScore, probability, put, rating, returnOnAssetsScore, returnOnEquityScore, rsi, sector, spread, spreadAbs, spreadPct, stockIV, stockPrice, stockType, strike, strikeFilter, symbol, symbolType, symbols, theta, thirtyDayAverageIV, thirtyDayAveragePremium, thirtyDayAverageVolume, twoHundredDayAverage, type, vega, volume, volumeHistorySamples30d, volumeStdDevDiff, volumeStdDevDiff30d, volumeZScore, volumeZScore30d, yieldPercent".split(
    ", ",
  );

/**
 * The column each accepted name must filter on, written here independently of the field table
 * (a days field compares the date column against today + n).
 */
export const COLUMN: Record<string, string> = {
  annualizedReturn: "annualized_return",
  askPrice: "ask_price",
  bidAskSpread: "spread_pct",
  bidAskSpreadAbs: "spread_abs",
  bidAskSpreadDollar: "spread_abs",
  bidAskSpreadPct: "spread_pct",
  bidAskSpreadPercent: "spread_pct",
  bidPrice: "bid_price",
  call: "(type = 'call')",
  consensus: "consensus",
  contractScore: "contract_score",
  cushion: "cushion",
  daysToExpiration: "expiration",
  debtToEquityScore: "de_score",
  delta: "delta",
  discountedCashFlowScore: "dcf_score",
  dividendFrequency: "dividend_frequency",
  dividendIsEstimated: "next_dividend_is_estimated",
  dividendYield: "dividend_yield",
  dividendamount: "next_dividend_amount",
  dividenddate: "next_dividend_date",
  dividenddays: "next_dividend_date",
  dividendpaymentdate: "next_dividend_payment_date",
  dte: "expiration",
  earnings: "earnings_before_expiration",
  earningsDate: "earnings_date",
  exdividenddate: "next_dividend_date",
  expiration: "expiration",
  expirationDays: "expiration",
  expiration_days: "expiration",
  fiftyDayAverage: "fifty_day_average",
  fiftyTwoWeekHigh: "fifty_two_week_high",
  fiftyTwoWeekLow: "fifty_two_week_low",
  gamma: "gamma",
  highestStockIV: "highest_stock_iv",
  impliedVolatility: "implied_volatility",
  industry: "industry",
  iv: "implied_volatility",
  ivr: "ivr",
  lastPrice: "last_price",
  lastTradeDate: "last_trade_date",
  lastUpdatedDate: "last_updated_date",
  liquidity: "liquidity",
  lowestStockIV: "lowest_stock_iv",
  markOneDayAgo: "yesterday_mark",
  marketCap: "market_cap",
  moneyness: "moneyness",
  nextDividendAmount: "next_dividend_amount",
  nextDividendDate: "next_dividend_date",
  nextDividendDays: "next_dividend_date",
  nextDividendIsEstimated: "next_dividend_is_estimated",
  nextDividendPaymentDate: "next_dividend_payment_date",
  openInterest: "open_interest",
  openInterestHistorySamples30d: "oi_samples_30d",
  openInterestStdDevDiff: "oi_diff_30d",
  openInterestStdDevDiff30d: "oi_diff_30d",
  openInterestZScore: "oi_z_30d",
  openInterestZScore30d: "oi_z_30d",
  overallScore: "overall_score",
  peRatio: "pe_ratio",
  premium: "premium",
  premiumChange1dPct: "premium_change_1d_pct",
  premiumIncreasing: "premium_increasing",
  premiumIncreasing30d: "premium_increasing_30d",
  priceToBookScore: "pb_score",
  priceToEarningsScore: "pe_score",
  probability: "probability",
  put: "(type = 'put')",
  rating: "rating",
  returnOnAssetsScore: "roa_score",
  returnOnEquityScore: "roe_score",
  rsi: "rsi",
  sector: "sector",
  spread: "spread_pct",
  spreadAbs: "spread_abs",
  spreadPct: "spread_pct",
  stockIV: "stock_iv",
  stockPrice: "stock_price",
  stockType: "asset_type",
  strike: "strike",
  strikeFilter: "strike_rank",
  symbol: "symbol",
  symbolType: "asset_type",
  symbols: "symbol",
  theta: "theta",
  thirtyDayAverageIV: "avg_iv_30d",
  thirtyDayAveragePremium: "avg_premium_30d",
  thirtyDayAverageVolume: "avg_volume_30d",
  twoHundredDayAverage: "two_hundred_day_average",
  type: "type",
  vega: "vega",
  volume: "volume",
  volumeHistorySamples30d: "volume_samples_30d",
  volumeStdDevDiff: "volume_diff_30d",
  volumeStdDevDiff30d: "volume_diff_30d",
  volumeZScore: "volume_z_30d",
  volumeZScore30d: "volume_z_30d",
  yieldPercent: "yield_percent",
};
export const DAYS_FIELDS = new Set(["dte", "daysToExpiration", "expirationDays", "expiration_days", "dividenddays", "nextDividendDays"]);

/** `POST /v1/contracts/screen` with the key options `auth()` returns at call time: the raw response, and the body read through the contract. */
export function screenClient(auth: () => RequestInit) {
  const post = (body: unknown, query = "", init: RequestInit = auth()) =>
    call(`/v1/contracts/screen${query}`, {
      ...init,
      method: "POST",
      headers: { ...(init.headers as Record<string, string>), "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const screen = async (body: unknown, query = ""): Promise<ScreenerResponse> => contractBody(screenRoute, await post(body, query));
  return { post, screen };
}

/** Rows of the screener table matching a SQL condition (independent of the compiler), capped like the API's count. */
export async function expectedCount(condition: string, params: unknown[] = []): Promise<number> {
  const [row] = await marketSql().query(
    `select count(*)::int as n from (select 1 from screener_contracts where ${condition} limit 1000) as capped`,
    params,
  );
  return row!.n as number;
}
