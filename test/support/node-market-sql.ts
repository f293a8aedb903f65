import { neon } from "@neondatabase/serverless";
import { useNeonEndpoint } from "../../src/db/client";
import { testSqlPassword } from "./sql-password";

/** Raw SQL on the seeded market database from Node (the system tier), through the same local endpoint the Worker reads. */
export function nodeMarketSql() {
  useNeonEndpoint("http://{host}:{port}/sql");
  return neon(`postgresql://app:${testSqlPassword()}@127.0.0.1:${process.env.TEST_SQL_PORT}/market`);
}

/**
 * `count` prints of `ticker` in one statement, in the newest session an hour before its last trade,
 * `volume` numbering them from `firstVolume` in feed order. Premium 3,000 each: under `/v1/flow`'s
 * default floor, so the flow tests' default answers never count them.
 */
export async function insertPrints(ticker: string, count: number, firstVolume = 1): Promise<void> {
  await nodeMarketSql().query(
    `insert into flow_prints (executed_at, session_date, ticker, option_symbol, option_type, strike, expiration, price, size, premium,
       bid, ask, underlying_price, otm_pct, side, sentiment, execution_type, volume, is_etf_or_index, print_class)
     select newest.at - interval '1 hour' + g * interval '1 millisecond', newest.session, $1, $1 || '271217C00050000', 'call', 50,
       '2027-12-17', 1, 30, 3000, 0.95, 1.05, 50, 0, 'ask', 'bullish', 'sweep', g, false, 'regular'
     from generate_series($2::int, $2::int + $3::int - 1) as g,
       (select max(session_date) as session, max(executed_at) as at from flow_prints) as newest
     order by g`,
    [ticker, firstVolume, count],
  );
}
