import { placeholderLogoUrl } from "../../ingest/contracts/write-definitions";
import { optionQuotes, underlyings } from "../../src/db/schema";
import { bulkInsert, updateOnConflict } from "../../ingest/pipeline/bulk-insert";
import { optionQuoteRow } from "../db/option-quote-row";
import { rebuildScreener } from "../db/screener-rebuild";
import type { SqlBackend } from "../sql-endpoint/sql-backend";
import type { PricedContract, QuoteTable } from "./cboe-quote-table";

/**
 * Writes a parsed quote table with the shared `option_quotes` row builder and bulk writer, upserting by
 * OCC symbol so loading the same file twice changes nothing; then moves the market snapshot
 * version on, which invalidates version-keyed caches, and rebuilds the screener table.
 */
export async function writeQuoteTable(backend: SqlBackend, table: QuoteTable, priced: PricedContract[], rate: number): Promise<number> {
  const asOf = table.asOf.toISOString();
  await bulkInsert(
    backend.typedQuery,
    underlyings,
    [
      {
        symbol: table.underlying,
        name: table.name,
        assetType: table.assetType,
        logoUrl: placeholderLogoUrl(table.underlying),
        optionable: true,
        inCoverage: true,
      },
    ],
    () => "on conflict (symbol) do nothing",
  );
  await backend.typedQuery(
    `insert into equity_quotes (symbol, price, as_of) values ($1, $2, $3)
     on conflict (symbol) do update set price = excluded.price, as_of = excluded.as_of`,
    [table.underlying, table.spot, asOf],
  );
  const rows = priced.map((c) => optionQuoteRow({ ...c, ...c.contract, underlying: table.underlying }, table.spot, asOf));
  await bulkInsert(backend.typedQuery, optionQuotes, rows, updateOnConflict(["option_symbol"]));
  await backend.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, $1, $2, $3, $4, $5)
     on conflict (id) do update set version = market_state.version + 1, loaded_at = now(), source = excluded.source`,
    [Date.now(), asOf, table.sessionDate, rate, `cboe-quote-table:${table.underlying}:${table.sessionDate}`],
  );
  await rebuildScreener(backend);
  return rows.length;
}
