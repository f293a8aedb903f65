import { and, between, eq, type SQL } from "drizzle-orm";
import type { GexContract, GexMarket } from "../analytics/gamma-book";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { equityQuotes, marketState, optionQuotes, underlyings } from "../db/schema";
import { yearsToExpiry } from "../domain/market-clock";
import type { MarketSnapshot } from "./snapshot-cache";
import { readWithSnapshot, type Derived } from "./snapshot-derived";

/** One underlying's listed contracts in an expiration window, as the GEX analytics take them. */
export interface GexChain {
  exists: boolean;
  /** The stored spot, USD; null when the underlying has no quote. */
  spot: number | null;
  market: GexMarket;
  contracts: GexContract[];
}

export function gexUnderlyingQuery(db: Database, symbol: string) {
  return db
    .select({ price: equityQuotes.price, dividendYield: underlyings.dividendYield })
    .from(underlyings)
    .leftJoin(equityQuotes, eq(equityQuotes.symbol, underlyings.symbol))
    .where(eq(underlyings.symbol, symbol));
}

/** The rate and session of the loaded market. */
export const marketTermsQuery = (db: Database) =>
  db.select({ rate: marketState.riskFreeRate, sessionDate: marketState.sessionDate }).from(marketState).limit(1);

/** Every root (SPX and SPXW alike) of the underlying: served by `option_quotes_chain_idx`. */
export function gexContractsQuery(db: Database, symbol: string, from: string | SQL, to: string | SQL) {
  return db
    .select({
      expiration: optionQuotes.expiration,
      strike: optionQuotes.strike,
      side: optionQuotes.side,
      settlement: optionQuotes.settlement,
      multiplier: optionQuotes.multiplier,
      iv: optionQuotes.iv,
      openInterest: optionQuotes.openInterest,
      asOf: optionQuotes.asOf,
    })
    .from(optionQuotes)
    .where(and(eq(optionQuotes.underlying, symbol), between(optionQuotes.expiration, from, to)));
}

/**
 * The chain of `symbol` expiring in [from, to], with the inputs of re-pricing: the stored rate,
 * the underlying's dividend yield, and each contract's time to its expiry instant from its quote
 * time (AM-settled roots expire at the open). One round trip.
 */
export async function readGexChain(db: Database, symbol: string, from: string, to: string): Promise<Derived<GexChain>> {
  const {
    snapshot,
    rows: [underlying, rate, rows],
  } = await readWithSnapshot(db, [gexUnderlyingQuery(db, symbol), marketTermsQuery(db), gexContractsQuery(db, symbol, from, to)]);
  return { snapshot, value: gexChain(snapshot, underlying, rate, rows) };
}

/** Assembles the rows of the three queries above into a chain priced as of the snapshot. */
export function gexChain(
  snapshot: MarketSnapshot,
  underlying: Awaited<ReturnType<typeof gexUnderlyingQuery>>,
  terms: Awaited<ReturnType<typeof marketTermsQuery>>,
  rows: Awaited<ReturnType<typeof gexContractsQuery>>,
): GexChain {
  const snapshotAt = instant(snapshot.asOf) ?? new Date();
  return {
    exists: underlying.length > 0,
    spot: underlying[0]?.price ?? null,
    market: { r: terms[0]?.rate ?? 0, q: underlying[0]?.dividendYield ?? 0 },
    contracts: rows.map((c) => ({
      expiration: c.expiration,
      strike: c.strike,
      side: c.side,
      openInterest: c.openInterest,
      multiplier: c.multiplier,
      iv: c.iv,
      // From the contract's own quote time, at which its IV was taken (a loaded file keeps its session's).
      T: yearsToExpiry(c.expiration, c.settlement, instant(c.asOf) ?? snapshotAt),
    })),
  };
}

function instant(timestamp: string | null): Date | null {
  const iso = isoTimestamp(timestamp);
  return iso === null ? null : new Date(iso);
}
