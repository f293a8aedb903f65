import { OPTION_COLUMNS, optionRow, UNDERLYING_COLUMNS } from "../generator/rows";
import type { PricedContract, QuoteTable } from "../loaders/cboe-quote-table";
import { bulkInsert } from "./bulk-insert";
import type { SqlBackend } from "./sql-backend";

const UPDATE_OPTION = `on conflict (option_symbol) do update set ${Object.keys(OPTION_COLUMNS)
  .filter((c) => c !== "option_symbol")
  .map((c) => `${c} = excluded.${c}`)
  .join(", ")}`;

/**
 * Writes a parsed quote table with the generator's row builder and bulk writer, upserting by
 * OCC symbol so loading the same file twice changes nothing; then moves the market snapshot
 * version on, which invalidates version-keyed caches.
 */
export async function writeQuoteTable(backend: SqlBackend, table: QuoteTable, priced: PricedContract[], rate: number): Promise<number> {
  const asOf = table.asOf.toISOString();
  const underlying = Object.fromEntries(Object.keys(UNDERLYING_COLUMNS).map((k) => [k, null])) as Record<string, unknown>;
  Object.assign(underlying, {
    symbol: table.underlying,
    name: table.name,
    asset_type: table.assetType,
    logo_url: `https://logos.example.com/${table.underlying.toLowerCase()}.png`,
    optionable: true,
    in_coverage: true,
  });
  await bulkInsert(
    backend,
    "underlyings",
    UNDERLYING_COLUMNS,
    [Object.keys(UNDERLYING_COLUMNS).map((k) => underlying[k])],
    "on conflict (symbol) do nothing",
  );
  await backend.typedQuery(
    `insert into equity_quotes (symbol, price, as_of) values ($1, $2, $3)
     on conflict (symbol) do update set price = excluded.price, as_of = excluded.as_of`,
    [table.underlying, table.spot, asOf],
  );
  const rows = priced.map((c) => optionRow({ ...c, ...c.contract, underlying: table.underlying }, table.spot, asOf));
  await bulkInsert(backend, "option_quotes", OPTION_COLUMNS, rows, UPDATE_OPTION);
  await backend.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, $1, $2, $3, $4, $5)
     on conflict (id) do update set version = market_state.version + 1, loaded_at = now(), source = excluded.source`,
    [Date.now(), asOf, table.sessionDate, rate, `cboe-quote-table:${table.underlying}:${table.sessionDate}`],
  );
  return rows.length;
}
