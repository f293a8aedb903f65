import { neon } from "@neondatabase/serverless";
import { useNeonEndpoint } from "../../src/db/client";
import { TEST_SESSION } from "./test-clock";
export { addDays, daysBetween } from "../../src/domain/calendar";
import { admin } from "./accounts";
import { testEnv } from "./worker";

/** Raw SQL on the market database, for arranging data and checking answers against it. */
export function marketSql() {
  useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
  return neon(testEnv.MARKET_DATABASE_URL);
}

/** Raw SQL on the control-plane database (accounts, keys, subscriptions). */
export function controlSql() {
  useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
  return neon(testEnv.CONTROL_DATABASE_URL);
}

/** Simulates a new market load as the loaders do it: a new snapshot version and time, then the edge is told. */
export async function bumpMarketVersion(): Promise<void> {
  await marketSql().query("update market_state set version = version + 1, as_of = now()");
  const res = await admin.refreshSnapshot();
  if (res.status !== 200) throw new Error(`snapshot refresh failed: ${res.status}`);
}

/** The session the loaded market is of (`market_state.session_date`). */
export async function loadedSession(): Promise<string> {
  const [state] = await marketSql().query("select session_date::text as d from market_state");
  return state!.d as string;
}

/** Today's date in New York as the Worker under test sees it (its pinned `MARKET_CLOCK`). */
export const etToday = () => TEST_SESSION;

/**
 * A dedicated underlying with a small chain (calls and puts, several expirations), so tests that
 * change market data never disturb the seeded names other tests read.
 */
export async function createTestUnderlying(symbol: string, spot: number, expirations: string[], strikes: number[]): Promise<void> {
  const sql = marketSql();
  await sql.query("delete from option_quotes where underlying = $1", [symbol]);
  await sql.query(
    `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage) values ($1, $1 || ' Test Inc.', 'stock', 'https://logos.example.com/t.png', true, true) on conflict do nothing`,
    [symbol],
  );
  await sql.query(
    "insert into equity_quotes (symbol, price, as_of) values ($1, $2, now()) on conflict (symbol) do update set price = excluded.price",
    [symbol, spot],
  );
  await sql.query(
    `insert into option_quotes (option_symbol, underlying, root, expiration, strike, side, settlement, bid, ask, underlying_price, as_of)
     select $1 || to_char(e, 'YYMMDD') || case s when 'call' then 'C' else 'P' end || lpad((k * 1000)::bigint::text, 8, '0'),
            $1, $1, e, k, s, 'pm', 1, 1.1, $2, now()
       from unnest($3::date[]) e, unnest($4::float8[]) k, unnest(array['call', 'put']) s`,
    [symbol, spot, expirations, strikes],
  );
}
