import { sessionOnOrAfter, todayInNewYork } from "../../src/domain/calendar";
import { optionQuotes, underlyings } from "../../src/db/schema";
import { nanosToMs } from "../dbn";
import type { ContractEvent } from "../events";
import { bulkInsert } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { writeAtPositions } from "../db/positions";
import { columnNames, queryRows, selectList, type Selected, sqlNames } from "../db/rows";
import { contractScopes } from "../db/versions";

const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);
const U = columnNames(underlyings);

/** Deletes the contracts `where` picks, returning their underlyings and roots (whose scopes change). */
const deleteContracts = (query: TypedQuery, where: string, params: unknown[]) =>
  queryRows<Selected<typeof optionQuotes, "underlying" | "root">>(
    query,
    `delete from ${OPTION_QUOTES} where ${where} returning ${selectList(optionQuotes, ["underlying", "root"])}`,
    params,
  );

/** The logo an underlying has until a fundamentals vendor gives one (the generator's and the loaders' convention). */
export function placeholderLogoUrl(symbol: string): string {
  return `https://logos.example.com/${symbol.toLowerCase()}.png`;
}

/**
 * Applies a batch of definitions and moves the feed's position, in one transaction: a listed
 * contract enters `option_quotes` unquoted (its quote and open interest come with the samples and
 * statistics), under an underlying added with what the feed tells of it when it is new (a
 * fundamentals vendor names it later); a delisted one leaves. Contracts whose expiration precedes
 * the session the definitions are for (the session on or after their ET receive date) are
 * retired. Definitions at or before the stored position are skipped.
 */
export async function writeDefinitions(
  db: IngestDatabase,
  feed: string,
  events: readonly ContractEvent[],
  through?: bigint,
): Promise<{ written: number; skipped: number }> {
  return writeAtPositions(
    db,
    feed,
    events,
    async (query, pending) => {
      const listed = pending.filter((e) => e.kind === "listed");
      const delisted = pending.filter((e) => e.kind === "delisted").map((e) => e.optionSymbol);
      const newUnderlyings = new Map(listed.map((e) => [e.underlying, e.isIndex]));
      await bulkInsert(
        query,
        underlyings,
        [...newUnderlyings].map(([symbol, isIndex]) => ({
          symbol,
          name: symbol,
          assetType: isIndex ? ("index" as const) : ("stock" as const),
          logoUrl: placeholderLogoUrl(symbol),
          optionable: true,
          inCoverage: false,
        })),
        () => `on conflict (${U.symbol}) do nothing`,
      );
      await bulkInsert(
        query,
        optionQuotes,
        listed.map((e) => ({
          optionSymbol: e.optionSymbol,
          underlying: e.underlying,
          root: e.contract.root,
          expiration: e.contract.expiration,
          strike: e.contract.strike,
          side: e.contract.side,
          settlement: e.settlement,
          multiplier: 100,
        })),
        () => `on conflict (${Q.optionSymbol}) do nothing`,
      );
      const removed = [];
      if (delisted.length > 0) removed.push(...(await deleteContracts(query, `${Q.optionSymbol} = any($1::text[])`, [delisted])));
      const sessions = new Set(listed.map((e) => sessionOnOrAfter(todayInNewYork(new Date(nanosToMs(e.position.tsRecv))))));
      if (sessions.size > 0) removed.push(...(await deleteContracts(query, `${Q.expiration} < $1::date`, [[...sessions].sort().at(-1)])));
      const scopes = contractScopes([...listed.map((e) => ({ underlying: e.underlying, root: e.contract.root })), ...removed]);
      return { scopes, asOf: new Date(nanosToMs(pending.at(-1)!.position.tsRecv)) };
    },
    through,
  );
}
