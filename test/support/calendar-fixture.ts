import { earningsRoute } from "../../src/routes/calendars/earnings";
import { dividendsRoute } from "../../src/routes/calendars/dividends";
import type { ApiClient } from "./api-client";
import { contractBody } from "./contract";
import { addDays, bumpMarketVersion, etToday, marketSql } from "./market-db";

/** The calendar routes read through their contracts with the client `api()` returns at call time. */
export function calendarReaders(api: () => ApiClient) {
  const earnings = async (query = "") => {
    const res = await api().get(`/v1/earnings${query ? `?${query}` : ""}`);
    return { res, body: await contractBody(earningsRoute, res) };
  };
  const dividends = async (query = "") => {
    const res = await api().get(`/v1/dividends${query ? `?${query}` : ""}`);
    return { res, body: await contractBody(dividendsRoute, res) };
  };
  return { earnings, dividends };
}

/** Stored events in a window as (date, symbol) keys, in calendar order. */
export async function storedKeys(table: "earnings" | "dividends", from: string, to: string, coveredOnly = false): Promise<string[]> {
  const date = table === "earnings" ? "earnings_date" : "ex_date";
  const rows = (await marketSql().query(
    `select t.${date}::text as d, t.symbol from ${table} t left join underlyings u using (symbol)
      where t.${date} between $1::date and $2::date ${coveredOnly ? "and coalesce(u.in_coverage, false)" : ""}
      order by t.${date}, t.symbol`,
    [from, to],
  )) as { d: string; symbol: string }[];
  return rows.map((r) => `${r.d} ${r.symbol}`);
}

/**
 * Three companies reporting on one date 10 days out (CALA, CALB, CALC), so pages split inside a date.
 * Idempotent and never deleted: files that arrange it concurrently insert the same rows once. A new
 * snapshot follows, as after a load: the isolate's cached calendars from earlier files must not answer.
 */
export async function arrangeSameDayEarnings(): Promise<void> {
  const sql = marketSql();
  const day = addDays(etToday(), 10);
  for (const symbol of ["CALA", "CALB", "CALC"]) {
    await sql.query(
      `insert into underlyings (symbol, name, asset_type, logo_url, optionable, in_coverage)
       values ($1, $1 || ' Corp.', 'stock', 'https://logos.example.com/c.png', true, true) on conflict do nothing`,
      [symbol],
    );
    await sql.query(
      `insert into earnings (symbol, earnings_date, timing, fiscal_quarter, eps_estimated, revenue_estimated)
       values ($1, $2::date, 'dmh', null, null, null) on conflict do nothing`,
      [symbol, day],
    );
  }
  await bumpMarketVersion();
}
