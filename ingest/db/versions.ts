import { marketState, marketVersions } from "../../src/db/schema";
import { tradedScope } from "../../src/market/scopes";
import type { TypedQuery } from "./database";
import { sqlNames } from "./rows";

const [MARKET_STATE, S] = sqlNames(marketState);
const [MARKET_VERSIONS, V] = sqlNames(marketVersions);

/**
 * What a write changed, for the caches: the scopes it touched (underlyings and option roots; see
 * `market_versions`) and the newest data time it applied.
 */
export interface Touched {
  scopes: Set<string>;
  asOf: Date;
}

/** The scopes of contracts: their underlyings and their roots (an option quote is cached under its root). */
export function contractScopes(contracts: Iterable<{ underlying: string; root: string }>): Set<string> {
  const scopes = new Set<string>();
  for (const c of contracts) scopes.add(c.underlying).add(c.root);
  return scopes;
}

/** The scopes trades of these contracts change: their underlyings' and roots' traded scopes. */
export function tradedScopes(contracts: Iterable<{ underlying: string; root: string }>): Set<string> {
  return new Set([...contractScopes(contracts)].map(tradedScope));
}

/**
 * Gives the scopes one new version. `market_state`'s row lock, held until the transaction
 * commits, orders the versions as they commit, so an edge that read every change up to version n
 * never misses one below it: call it last in the transaction, to hold the lock briefly.
 */
export const BUMP_SCOPES_SQL = `
  with v as (update ${MARKET_STATE} set ${S.scopeVersion} = ${S.scopeVersion} + 1 where ${S.id} = 1 returning ${S.scopeVersion})
  insert into ${MARKET_VERSIONS} (${V.scope}, ${V.version}, ${V.asOf})
  select s, v.${S.scopeVersion}, $2::timestamptz from v, unnest($1::text[]) as s
  on conflict (${V.scope}) do update set ${V.version} = excluded.${V.version}, ${V.asOf} = greatest(${MARKET_VERSIONS}.${V.asOf}, excluded.${V.asOf})`;

export async function bumpScopes(query: TypedQuery, touched: Touched): Promise<void> {
  if (touched.scopes.size === 0) return;
  await query(BUMP_SCOPES_SQL, [[...touched.scopes], touched.asOf.toISOString()]);
}
