import { placeholderLogoUrl } from "../../contracts/write-definitions";
import type { QuoteEvent } from "../../events";
import { bulkInsert, updateOnConflict } from "../../db/bulk-insert";
import { columnNames, sqlNames } from "../../db/rows";
import { OptionBook } from "../../quotes/option-book";
import { writeQuotes } from "../../quotes/write-quotes";
import { equityQuotes, marketState, underlyings } from "../../../src/db/schema";
import { rebuildScreener } from "../../screener/rebuild";
import type { SqlBackend } from "../../db/sql-backend";
import type { QuoteTable } from "./quote-table";

const U = columnNames(underlyings);
const E = columnNames(equityQuotes);
const [MARKET_STATE, S] = sqlNames(marketState);

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
    () => `on conflict (${U.symbol}) do nothing`,
  );
  // An empty database takes the file's session and rate as its market's.
  await bulkInsert(
    backend.typedQuery,
    marketState,
    [{ id: 1, version: Date.now(), asOf, sessionDate: table.sessionDate, riskFreeRate: terms.rate, source: "cboe-quote-table" }],
    () => `on conflict (${S.id}) do nothing`,
  );
  const market = {
    book: new OptionBook(),
    rate: terms.rate,
    dividendYields: new Map([[table.underlying, terms.dividendYield]]),
    spots: new Map<string, number>(),
  };
  const { written } = await writeQuotes(backend, `cboe-quote-table:${file}`, quoteEvents(table), market);
  if (written === 0) return 0;
  await bulkInsert(backend.typedQuery, equityQuotes, [{ symbol: table.underlying, price: table.spot, asOf }], updateOnConflict([E.symbol]));
  await backend.typedQuery(
    `update ${MARKET_STATE} set ${S.version} = ${S.version} + 1, ${S.loadedAt} = now(), ${S.source} = $1 where ${S.id} = 1`,
    [`cboe-quote-table:${table.underlying}:${table.sessionDate}`],
  );
  await rebuildScreener(backend);
  return written;
}
