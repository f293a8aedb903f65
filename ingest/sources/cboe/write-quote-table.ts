import { placeholderLogoUrl } from "../../contracts/write-definitions";
import type { QuoteEvent } from "../../events";
import { bulkInsert } from "../../db/bulk-insert";
import { OptionBook } from "../../quotes/option-book";
import { writeQuotes } from "../../quotes/write-quotes";
import { underlyings } from "../../../src/db/schema";
import { rebuildScreener } from "../../screener/rebuild";
import type { SqlBackend } from "../../db/sql-backend";
import type { QuoteTable } from "./quote-table";

/** The pricing terms a file load takes from its command line: the rate, and the underlying's continuous dividend yield. */
export interface LoadTerms {
  rate: number;
  dividendYield: number;
}

/** The table's contracts as the pipeline's samples at its close, each stating what the file gives beyond the NBBO. */
function quoteEvents(table: QuoteTable): QuoteEvent[] {
  const position = { schema: "cbbo-1m" as const, tsRecv: BigInt(table.asOf.getTime()) * 1_000_000n };
  return table.contracts.map((c) => ({
    kind: "quote",
    optionSymbol: c.optionSymbol,
    contract: c.contract,
    underlying: table.underlying,
    isIndex: table.assetType === "index",
    settlement: c.settlement,
    position,
    asOf: table.asOf,
    bid: c.bid,
    ask: c.ask,
    bidSize: 0,
    askSize: 0,
    last: c.last,
    stated: { spot: table.spot, iv: c.vendorIv, volume: c.volume, openInterest: c.openInterest },
  }));
}

/**
 * Loads a parsed quote table through the pipeline's quote writer (`writeQuotes`), the file its own
 * feed (`cboe-quote-table:<file>`): each contract a sample at the table's close priced at the
 * file's "Last" with Cboe's IV where it gave one (else solved from the mid), with the session's
 * volume and open interest as the file states them. A second load of the file finds its position
 * and writes nothing. A load that wrote names the underlying, takes the file's spot as its price,
 * moves the market's version (every cache reads afresh) and rebuilds the screener.
 */
export async function writeQuoteTable(backend: SqlBackend, file: string, table: QuoteTable, terms: LoadTerms): Promise<number> {
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
  // An empty database takes the file's session and rate as its market's.
  await backend.typedQuery(
    `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, $1, $2, $3, $4, 'cboe-quote-table')
     on conflict (id) do nothing`,
    [Date.now(), asOf, table.sessionDate, terms.rate],
  );
  const market = {
    book: new OptionBook(),
    rate: terms.rate,
    dividendYields: new Map([[table.underlying, terms.dividendYield]]),
    spots: new Map<string, number>(),
  };
  const { written } = await writeQuotes(backend, `cboe-quote-table:${file}`, quoteEvents(table), market);
  if (written === 0) return 0;
  await backend.typedQuery(
    `insert into equity_quotes (symbol, price, as_of) values ($1, $2, $3)
     on conflict (symbol) do update set price = excluded.price, as_of = excluded.as_of`,
    [table.underlying, table.spot, asOf],
  );
  await backend.typedQuery(`update market_state set version = version + 1, loaded_at = now(), source = $1 where id = 1`, [
    `cboe-quote-table:${table.underlying}:${table.sessionDate}`,
  ]);
  await rebuildScreener(backend);
  return written;
}
