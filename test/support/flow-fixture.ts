import { marketSql } from "./market-db";

/** A print as tests arrange it; everything not given is a plausible default. */
export interface FixturePrint {
  ticker: string;
  executedAt: string;
  sessionDate: string;
  optionType?: "call" | "put";
  side?: "ask" | "bid" | "mid" | "unknown";
  price: number;
  size: number;
  printClass?: "regular" | "complex" | "canceled";
  underlyingPrice?: number;
  executionType?: "sweep" | "block" | "split";
}

const SENTIMENT: Record<string, Record<string, string>> = {
  call: { ask: "bullish", bid: "bearish", mid: "neutral", unknown: "neutral" },
  put: { ask: "bearish", bid: "bullish", mid: "neutral", unknown: "neutral" },
};

/**
 * Replaces a ticker's prints with these (premium = price × size × 100; sentiment by the quote rule).
 * Open interest, opening, IV and delta are the columns' defaults: unknown (0, false, 0, 0, sources `none`).
 */
export async function arrangePrints(ticker: string, prints: FixturePrint[]): Promise<void> {
  await marketSql().query("delete from flow_prints where ticker = $1", [ticker]);
  await appendPrints(prints);
}

/** Adds prints to the feed, in this order (each its own commit, so feed order is array order). */
export async function appendPrints(prints: FixturePrint[]): Promise<void> {
  const sql = marketSql();
  for (const p of prints) {
    const type = p.optionType ?? "call";
    const side = p.side ?? "ask";
    const printClass = p.printClass ?? "regular";
    await sql.query(
      `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
         bid, ask, underlying_price, otm_pct, side, sentiment, execution_type, volume, is_etf_or_index, print_class)
       values ($1::timestamptz, $2::date, $3, $3 || '271217' || $4 || '00050000', $5, 50, '2027-12-17', $6::float8, $7::int, $6::float8 * $7::int * 100,
         $6::float8 - 0.05, $6::float8 + 0.05, $8, 0, $9, $10, $11, $7::int, false, $12)`,
      [
        p.executedAt,
        p.sessionDate,
        p.ticker,
        type === "call" ? "C" : "P",
        type,
        p.price,
        p.size,
        p.underlyingPrice ?? 50,
        side,
        printClass === "regular" ? SENTIMENT[type]![side] : "neutral",
        p.executionType ?? "sweep",
        printClass,
      ],
    );
  }
}

/** The newest session and the newest trade time of the whole feed, as the database has them. */
export async function feedNewest(): Promise<{ session: string; asOf: string }> {
  const [row] = (await marketSql().query(
    "select session_date::text as session, (extract(epoch from executed_at) * 1000)::float8 as ms from flow_prints order by session_date desc, executed_at desc limit 1",
  )) as { session: string; ms: number }[];
  return { session: row!.session, asOf: new Date(row!.ms).toISOString() };
}

/**
 * `count` prints of `ticker` in one statement, in feed order, `volume` numbering them from
 * `firstVolume`: a flood for the streams' tests, an hour before `before`. Premium 3,000 each, under
 * `/v1/flow`'s default floor, so the flow tests' default answers never count them.
 */
export async function floodPrints(ticker: string, session: string, before: string, count: number, firstVolume = 1): Promise<void> {
  await marketSql().query(
    `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
       bid, ask, underlying_price, otm_pct, side, sentiment, execution_type, volume, is_etf_or_index, print_class)
     select $1::timestamptz - interval '1 hour' + g * interval '1 millisecond', $2::date, $3, $3 || '271217C00050000', 'call', 50,
       '2027-12-17', 1, 30, 3000, 0.95, 1.05, 50, 0, 'ask', 'bullish', 'sweep', g, false, 'regular'
     from generate_series($4::int, $4::int + $5::int - 1) as g order by g`,
    [before, session, ticker, firstVolume, count],
  );
}
