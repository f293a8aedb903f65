import {
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { tsz } from "./columns";

const day = (name: string) => date(name, { mode: "string" });

/**
 * The loaded market snapshot. `version` changes on every load (the whole market may have changed)
 * and keys every snapshot-derived cache entry with the versions of `market_versions`
 * (docs/storage.md). Pagination cursors do not carry it: they hold the last row's key and are
 * bound to the query (src/pagination/cursor.ts), so a load between two pages continues in the new
 * snapshot from the same position.
 */
export const marketState = pgTable("market_state", {
  id: smallint("id").primaryKey().default(1),
  version: bigint("version", { mode: "number" }).notNull(),
  asOf: tsz("as_of").notNull(),
  sessionDate: day("session_date").notNull(),
  riskFreeRate: doublePrecision("risk_free_rate").notNull(),
  source: text("source").notNull(),
  loadedAt: tsz("loaded_at").notNull().defaultNow(),
  /** The session whose open interest `option_quotes` holds, when a feed's statistics set it (null: the seed's or a loader's). */
  openInterestDate: day("open_interest_date"),
  /** The newest version handed to a `market_versions` scope: the row's lock orders the bumps as they commit. */
  scopeVersion: bigint("scope_version", { mode: "number" }).notNull().default(0),
});

/**
 * What changed since the last load, per scope: an underlying (or an option root such as SPXW) or
 * `*` for market-wide views (rankings, calendars). A writer bumps the scopes its transaction touches
 * to one new `market_state.scope_version`, so an edge reads every change after the newest it knows
 * with `version > known` and an update of one underlying never invalidates another's caches.
 */
export const marketVersions = pgTable(
  "market_versions",
  {
    scope: text("scope").primaryKey(),
    version: bigint("version", { mode: "number" }).notNull(),
    /** The newest data time applied to the scope. */
    asOf: tsz("as_of").notNull(),
  },
  (t) => [index("market_versions_version_idx").on(t.version)],
);

/**
 * How far the ingestor has written each schema of its feed: the newest receive time (ns since the
 * epoch) whose events are all stored. Advanced in the same transaction as the data, so a restart
 * resumes after it with nothing lost and nothing counted twice.
 */
export const feedPositions = pgTable(
  "feed_positions",
  {
    feed: text("feed").notNull(),
    schema: text("schema").notNull(),
    tsRecv: bigint("ts_recv", { mode: "bigint" }).notNull(),
    updatedAt: tsz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.feed, t.schema] })],
);

/**
 * Open interest a feed's statistics published for a session, held until the whole day's set is
 * in: then it replaces every contract's open interest in one transaction (never a mix of two days).
 */
export const openInterestStaged = pgTable(
  "open_interest_staged",
  {
    sessionDate: day("session_date").notNull(),
    optionSymbol: text("option_symbol").notNull(),
    openInterest: integer("open_interest").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionDate, t.optionSymbol] })],
);

export const underlyings = pgTable(
  "underlyings",
  {
    symbol: text("symbol").primaryKey(),
    name: text("name").notNull(),
    assetType: text("asset_type", { enum: ["stock", "etf", "index"] }).notNull(),
    sector: text("sector"),
    industry: text("industry"),
    marketCap: doublePrecision("market_cap"),
    peRatio: doublePrecision("pe_ratio"),
    logoUrl: text("logo_url").notNull(),
    optionable: boolean("optionable").notNull(),
    /** In the dividend-calendar coverage universe (listed stocks and ETFs with options data). */
    inCoverage: boolean("in_coverage").notNull(),
    dividendYield: doublePrecision("dividend_yield"),
    dividendFrequency: text("dividend_frequency"),
    rating: text("rating"),
    consensus: text("consensus"),
    overallScore: smallint("overall_score"),
    discountedCashFlowScore: smallint("dcf_score"),
    returnOnEquityScore: smallint("roe_score"),
    returnOnAssetsScore: smallint("roa_score"),
    debtToEquityScore: smallint("de_score"),
    priceToEarningsScore: smallint("pe_score"),
    priceToBookScore: smallint("pb_score"),
  },
  (t) => [index("underlyings_asset_type_idx").on(t.assetType)],
);

export const equityQuotes = pgTable("equity_quotes", {
  symbol: text("symbol")
    .primaryKey()
    .references(() => underlyings.symbol),
  price: doublePrecision("price").notNull(),
  bid: doublePrecision("bid"),
  ask: doublePrecision("ask"),
  previousClose: doublePrecision("previous_close"),
  volume: bigint("volume", { mode: "number" }),
  asOf: tsz("as_of"),
  /** The session whose range `open`/`high`/`low` hold: the spots the ingestor wrote in it (the session roll's daily bar). */
  sessionDate: day("session_date"),
  open: doublePrecision("open"),
  high: doublePrecision("high"),
  low: doublePrecision("low"),
});

export const equityDaily = pgTable(
  "equity_daily",
  {
    symbol: text("symbol").notNull(),
    date: day("date").notNull(),
    open: doublePrecision("open").notNull(),
    high: doublePrecision("high").notNull(),
    low: doublePrecision("low").notNull(),
    close: doublePrecision("close").notNull(),
    volume: bigint("volume", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.date] })],
);

/** Current snapshot per contract. IV and Greeks are stored as computed (IV decimal). */
export const optionQuotes = pgTable(
  "option_quotes",
  {
    optionSymbol: text("option_symbol").primaryKey(),
    underlying: text("underlying").notNull(),
    root: text("root").notNull(),
    expiration: day("expiration").notNull(),
    strike: doublePrecision("strike").notNull(),
    side: text("side", { enum: ["call", "put"] }).notNull(),
    /** `am` settles at the open of the expiration day, `pm` at the close. */
    settlement: text("settlement", { enum: ["am", "pm"] }).notNull(),
    multiplier: integer("multiplier").notNull().default(100),
    bid: doublePrecision("bid"),
    ask: doublePrecision("ask"),
    last: doublePrecision("last"),
    volume: integer("volume"),
    openInterest: integer("open_interest"),
    iv: doublePrecision("iv"),
    delta: doublePrecision("delta"),
    gamma: doublePrecision("gamma"),
    theta: doublePrecision("theta"),
    vega: doublePrecision("vega"),
    rho: doublePrecision("rho"),
    underlyingPrice: doublePrecision("underlying_price"),
    asOf: tsz("as_of"),
    lastTradeAt: tsz("last_trade_at"),
    previousMark: doublePrecision("previous_mark"),
  },
  (t) => [
    // The chain's order: a chain cursor continues after its (expiration, strike, side, root).
    uniqueIndex("option_quotes_chain_idx").on(t.underlying, t.expiration, t.strike, t.side, t.root),
    index("option_quotes_expiration_idx").on(t.expiration),
  ],
);

export const optionDaily = pgTable(
  "option_daily",
  {
    optionSymbol: text("option_symbol").notNull(),
    date: day("date").notNull(),
    volume: integer("volume").notNull(),
    openInterest: integer("open_interest").notNull(),
    mark: doublePrecision("mark"),
    iv: doublePrecision("iv"),
  },
  (t) => [primaryKey({ columns: [t.optionSymbol, t.date] })],
);

/** Daily 30-day at-the-money IV per underlying (decimal), for rank, percentile and changes. */
export const ivDaily = pgTable(
  "iv_daily",
  {
    symbol: text("symbol").notNull(),
    date: day("date").notNull(),
    iv: doublePrecision("iv").notNull(),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.date] })],
);

export const earnings = pgTable(
  "earnings",
  {
    symbol: text("symbol").notNull(),
    earningsDate: day("earnings_date").notNull(),
    timing: text("timing", { enum: ["bmo", "amc", "dmh", "unknown"] }).notNull(),
    fiscalQuarter: text("fiscal_quarter"),
    epsEstimated: doublePrecision("eps_estimated"),
    revenueEstimated: doublePrecision("revenue_estimated"),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.earningsDate] }), index("earnings_date_idx").on(t.earningsDate, t.symbol)],
);

export const dividends = pgTable(
  "dividends",
  {
    symbol: text("symbol").notNull(),
    exDate: day("ex_date").notNull(),
    payDate: day("pay_date").notNull(),
    amount: doublePrecision("amount").notNull(),
    yieldPercent: doublePrecision("yield_percent").notNull(),
    frequency: text("frequency").notNull(),
    isEstimated: boolean("is_estimated").notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.exDate] }), index("dividends_ex_date_idx").on(t.exDate, t.symbol)],
);

/**
 * The last 7 days' sessions of classified trade prints, priced against the NBBO at trade time. Prints loaded
 * from vendor files carry their venue, sequence number and condition; (contract, time, sequence
 * number) identifies them, so a reload updates instead of duplicating.
 *
 * Partitioned by session (migration 0018, which drizzle-kit cannot express): a partition per
 * session, `flow_prints_other` for a session without one (src/market/flow-partitions.ts). A
 * session's writes touch only its own partition's indexes, whatever the retained sessions hold,
 * and retention drops whole partitions. Every key therefore holds `session_date`, the partition key.
 */
export const flowPrints = pgTable(
  "flow_prints",
  {
    id: bigserial("id", { mode: "number" }).notNull(),
    executedAt: tsz("executed_at").notNull(),
    sessionDate: day("session_date").notNull(),
    ticker: text("ticker").notNull(),
    optionSymbol: text("option_symbol").notNull(),
    optionType: text("option_type", { enum: ["call", "put"] }).notNull(),
    strike: doublePrecision("strike").notNull(),
    expiration: day("expiration").notNull(),
    price: doublePrecision("price").notNull(),
    size: integer("size").notNull(),
    premium: doublePrecision("premium").notNull(),
    bid: doublePrecision("bid"),
    ask: doublePrecision("ask"),
    /**
     * Spot at the trade: the feed's, else the nearest of the underlying in the session (docs/flow.md);
     * 0 when none is known. The defaults of this and the columns below are the served values of
     * "unknown", so a row written without them is still a complete print.
     */
    underlyingPrice: doublePrecision("underlying_price").notNull().default(0),
    /** Strike beyond spot in percent of spot, negative in the money; 0 without a spot. */
    otmPct: doublePrecision("otm_pct").notNull().default(0),
    side: text("side", { enum: ["ask", "bid", "mid", "unknown"] }).notNull(),
    sentiment: text("sentiment", { enum: ["bullish", "bearish", "neutral"] }).notNull(),
    executionType: text("execution_type", { enum: ["sweep", "block", "split"] }).notNull(),
    volume: integer("volume").notNull(),
    /** 0 when unknown (trade files carry none; `open_interest_source` says `none`), and `opening` is then false. */
    openInterest: integer("open_interest").notNull().default(0),
    openInterestSource: text("open_interest_source", { enum: ["session", "earlier", "none"] })
      .notNull()
      .default("none"),
    opening: boolean("opening").notNull().default(false),
    /** IV (decimal) and delta at the trade from the first source that has one (`iv_source`); 0 and 0 with `none`. */
    delta: doublePrecision("delta").notNull().default(0),
    iv: doublePrecision("iv").notNull().default(0),
    ivSource: text("iv_source", { enum: ["trade", "mid", "snapshot", "none"] })
      .notNull()
      .default("none"),
    isEtfOrIndex: boolean("is_etf_or_index").notNull(),
    /** `complex` (multi-leg) and `canceled` prints count for neither sentiment nor net premium. */
    printClass: text("print_class", { enum: ["regular", "complex", "canceled"] })
      .notNull()
      .default("regular"),
    /** The vendor's venue id (Cboe DataShop: 5 = Cboe), sequence number and trade condition id. */
    exchangeId: smallint("exchange_id"),
    sequenceNumber: bigint("sequence_number", { mode: "number" }),
    tradeConditionId: smallint("trade_condition_id"),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.sessionDate] }),
    uniqueIndex("flow_prints_trade_idx")
      .on(t.optionSymbol, t.executedAt, t.sequenceNumber, t.sessionDate)
      .where(sql`${t.sequenceNumber} is not null`),
    index("flow_prints_ticker_time_idx").on(t.ticker, t.executedAt.desc()),
    // The ingestor's read of a contract's session volume before a batch: one short range per contract.
    index("flow_prints_contract_session_idx").on(t.optionSymbol, t.sessionDate, t.executedAt),
    // And of an underlying's newest priced print before a batch (a trade's spot when it has none of its own).
    index("flow_prints_priced_idx")
      .on(t.ticker, t.sessionDate, t.executedAt.desc())
      .where(sql`${t.underlyingPrice} > 0`),
    index("flow_prints_ticker_session_premium_idx").on(t.ticker, t.sessionDate, t.premium.desc()),
    index("flow_prints_premium_idx").on(t.premium.desc(), t.id.desc()),
    // Partial: the capped count of a market-wide window is then an index-only scan.
    index("flow_prints_session_premium_idx")
      .on(t.sessionDate, t.premium.desc())
      .where(sql`${t.printClass} <> 'canceled'`),
    index("flow_prints_session_time_idx").on(t.sessionDate, t.executedAt.desc()),
  ],
);

/**
 * One denormalised row per contract for the screener (docs/screener.md): the contract, its metrics
 * at the snapshot and its underlying's data, so a screen reads one table. Percentages are percent
 * (8 means 8%). Range-partitioned by symbol (`screener_partitions`, written by hand in migration
 * 0019: drizzle-kit cannot express it); each partition is rebuilt beside it and swapped in as the
 * market moves (`ingest/screener`), so the key takes the partition key.
 */
export const screenerContracts = pgTable(
  "screener_contracts",
  {
    optionKey: text("option_key").notNull(),
    symbol: text("symbol").notNull(),
    type: text("type", { enum: ["call", "put"] }).notNull(),
    expiration: day("expiration").notNull(),
    strike: doublePrecision("strike").notNull(),
    bidPrice: doublePrecision("bid_price"),
    askPrice: doublePrecision("ask_price"),
    lastPrice: doublePrecision("last_price"),
    premium: doublePrecision("premium"),
    volume: integer("volume"),
    openInterest: integer("open_interest"),
    delta: doublePrecision("delta"),
    gamma: doublePrecision("gamma"),
    theta: doublePrecision("theta"),
    vega: doublePrecision("vega"),
    impliedVolatility: doublePrecision("implied_volatility"),
    yieldPercent: doublePrecision("yield_percent"),
    annualizedReturn: doublePrecision("annualized_return"),
    probability: doublePrecision("probability"),
    spreadAbs: doublePrecision("spread_abs"),
    spreadPct: doublePrecision("spread_pct"),
    moneyness: text("moneyness", { enum: ["itm", "atm", "otm"] }).notNull(),
    cushion: doublePrecision("cushion"),
    liquidity: integer("liquidity").notNull(),
    strikeRank: integer("strike_rank").notNull(),
    yesterdayMark: doublePrecision("yesterday_mark"),
    premiumChange1dPct: doublePrecision("premium_change_1d_pct"),
    premiumIncreasing: boolean("premium_increasing"),
    premiumIncreasing30d: boolean("premium_increasing_30d"),
    thirtyDayAverageVolume: doublePrecision("avg_volume_30d"),
    thirtyDayAverageIV: doublePrecision("avg_iv_30d"),
    thirtyDayAveragePremium: doublePrecision("avg_premium_30d"),
    volumeZScore30d: doublePrecision("volume_z_30d"),
    openInterestZScore30d: doublePrecision("oi_z_30d"),
    volumeStdDev30d: doublePrecision("volume_std_30d"),
    openInterestStdDev30d: doublePrecision("oi_std_30d"),
    volumeStdDevDiff30d: doublePrecision("volume_diff_30d"),
    openInterestStdDevDiff30d: doublePrecision("oi_diff_30d"),
    volumeHistorySamples30d: integer("volume_samples_30d").notNull(),
    openInterestHistorySamples30d: integer("oi_samples_30d").notNull(),
    contractScore: doublePrecision("contract_score").notNull(),
    lastTradeDate: tsz("last_trade_date"),
    lastUpdatedDate: tsz("last_updated_date").notNull(),
    earningsDate: day("earnings_date"),
    earningsBeforeExpiration: boolean("earnings_before_expiration").notNull(),
    expirationNearEarnings: boolean("expiration_near_earnings").notNull(),
    assetType: text("asset_type", { enum: ["stock", "etf", "index"] }).notNull(),
    industry: text("industry"),
    sector: text("sector"),
    rating: text("rating"),
    consensus: text("consensus"),
    logoUrl: text("logo_url").notNull(),
    stockPrice: doublePrecision("stock_price"),
    marketCap: doublePrecision("market_cap"),
    peRatio: doublePrecision("pe_ratio"),
    rsi: doublePrecision("rsi"),
    stockIV: doublePrecision("stock_iv"),
    ivr: doublePrecision("ivr"),
    lowestStockIV: doublePrecision("lowest_stock_iv"),
    lowestStockIVDate: day("lowest_stock_iv_date"),
    highestStockIV: doublePrecision("highest_stock_iv"),
    highestStockIVDate: day("highest_stock_iv_date"),
    fiftyTwoWeekLow: doublePrecision("fifty_two_week_low"),
    fiftyTwoWeekHigh: doublePrecision("fifty_two_week_high"),
    fiftyDayAverage: doublePrecision("fifty_day_average"),
    twoHundredDayAverage: doublePrecision("two_hundred_day_average"),
    dividendYield: doublePrecision("dividend_yield"),
    dividendFrequency: text("dividend_frequency"),
    nextDividendAmount: doublePrecision("next_dividend_amount"),
    nextDividendDate: day("next_dividend_date"),
    nextDividendPaymentDate: day("next_dividend_payment_date"),
    nextDividendIsEstimated: boolean("next_dividend_is_estimated").notNull(),
    overallScore: smallint("overall_score"),
    discountedCashFlowScore: smallint("dcf_score"),
    returnOnEquityScore: smallint("roe_score"),
    returnOnAssetsScore: smallint("roa_score"),
    debtToEquityScore: smallint("de_score"),
    priceToEarningsScore: smallint("pe_score"),
    priceToBookScore: smallint("pb_score"),
  },
  (t) => [
    primaryKey({ columns: [t.symbol, t.optionKey] }),
    index("screener_symbol_exp_strike_idx").on(t.symbol, t.expiration, t.strike, t.optionKey),
    // The table is written in this order (the rebuild sorts), so a side and a DTE window are adjacent pages.
    index("screener_type_exp_delta_idx").on(t.type, t.expiration, t.delta),
    index("screener_volume_z_idx").on(t.type, t.volumeZScore30d.desc(), t.optionKey),
    index("screener_premium_idx").on(t.premium.desc(), t.optionKey),
  ],
);

/**
 * The screener's partitions: whole underlyings in [lower, upper) of the symbol order (null: no
 * bound), and the newest market scope version their rows were derived after, which the
 * follower compares with `market_versions` to find what the market has moved since.
 */
export const screenerPartitions = pgTable("screener_partitions", {
  name: text("name").primaryKey(),
  lower: text("lower"),
  upper: text("upper"),
  builtVersion: bigint("built_version", { mode: "number" }).notNull(),
  builtAt: tsz("built_at").notNull().defaultNow(),
});

/**
 * Each contract's 30-session baseline (the sessions before the one it is for, ANALYTICS.md §5):
 * fixed for a session, so a minute's screener refresh reads it instead of the history.
 */
export const screenerBaselines = pgTable(
  "screener_baselines",
  {
    /** The session the baseline is for (the 30 sessions before it): the current one's, and the next once rolled. */
    sessionDate: day("session_date").notNull(),
    underlying: text("underlying").notNull(),
    optionSymbol: text("option_symbol").notNull(),
    samples: integer("samples").notNull(),
    avgVolume: doublePrecision("avg_volume"),
    stdVolume: doublePrecision("std_volume"),
    avgOpenInterest: doublePrecision("avg_oi"),
    stdOpenInterest: doublePrecision("std_oi"),
    avgIv: doublePrecision("avg_iv"),
    avgMark: doublePrecision("avg_mark"),
  },
  // By underlying after the session: a partition's rebuild reads its own range.
  (t) => [primaryKey({ columns: [t.sessionDate, t.underlying, t.optionSymbol] })],
);

/**
 * Each underlying's history figures for a session (its bars up to the session and its IVs before
 * it, as `equity_daily` and `iv_daily` held them when the session's baselines were written): fixed
 * for the session, so a minute's screener refresh merges only the session's IV into them instead
 * of aggregating a year.
 */
export const screenerUnderlyingBaselines = pgTable(
  "screener_underlying_baselines",
  {
    sessionDate: day("session_date").notNull(),
    symbol: text("symbol").notNull(),
    /** 52-week range, 50- and 200-session averages and the 14-session RSI of the closes. */
    low52: doublePrecision("low52"),
    high52: doublePrecision("high52"),
    avg50: doublePrecision("avg50"),
    avg200: doublePrecision("avg200"),
    rsi: doublePrecision("rsi"),
    /** The 30-day ATM IV's highest and lowest of the window before the session (decimal), each on its latest day. */
    ivHigh: doublePrecision("iv_high"),
    ivHighDate: day("iv_high_date"),
    ivLow: doublePrecision("iv_low"),
    ivLowDate: day("iv_low_date"),
  },
  (t) => [primaryKey({ columns: [t.sessionDate, t.symbol] })],
);

/** The steps of each session's roll done (`ingest/session/roll-session.ts`): a rerun skips them. */
export const sessionRolls = pgTable(
  "session_rolls",
  {
    sessionDate: day("session_date").notNull(),
    step: text("step").notNull(),
    doneAt: tsz("done_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sessionDate, t.step] })],
);

/**
 * Each day's refresh of calendars and company fundamentals from the vendor
 * (`ingest/fundamentals/refresh-fundamentals.ts`), written with its changes: the day is then done.
 */
export const fundamentalsRefreshes = pgTable("fundamentals_refreshes", {
  day: day("day").primaryKey(),
  vendor: text("vendor").notNull(),
  doneAt: tsz("done_at").notNull().defaultNow(),
  /** What the refresh found and changed (counts, what it kept and why). */
  report: jsonb("report").notNull(),
});
