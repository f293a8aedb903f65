import { and, between, eq, type SQL } from "drizzle-orm";
import { gammaBook, type GammaBook, type GexContract, type GexMarket } from "../analytics/gamma-book";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { equityQuotes, marketState, optionQuotes, underlyings } from "../db/schema";
import { expiryInstant, yearsToExpiry, yearsUntil } from "../domain/market-clock";
import { readWithSnapshot, type Derived, type MarketRead, type MarketSnapshot } from "./snapshot";

/** One underlying's listed contracts in an expiration window, priced as of their quote times. */
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
 * Assembles the rows of the three queries above into a chain for analytics of the loaded session (the
 * IV context, src/market/volatility.ts): each contract's time to its expiry instant runs from its own
 * quote time, at which its IV was taken (0 when it had settled by then; a loaded file keeps its session's times).
 */
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
    market: marketOf(underlying, terms),
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

/** One expiry instant of a GEX window: the expiration and its settlement instant (AM-settled roots at the open), epoch ms. */
export interface GexExpiry {
  expiration: string;
  expiresAt: number;
}

/** A contract that can carry exposure: [index into `expiries`, strike, +1 call / −1 put, open interest, multiplier, IV (decimal)]. */
export type GexInputRow = [expiry: number, strike: number, sign: 1 | -1, openInterest: number, multiplier: number, iv: number];

/**
 * What the GEX of one underlying's window is computed from, kept per snapshot: spot, rate and yield,
 * and the contracts with an IV and open interest with their expiry instants, but no time to expiry:
 * exposures are as of the request (`gexBookAt`). Rows are tuples because a window of a full-size
 * chain holds tens of thousands of contracts, cached in memory and KV.
 */
export interface GexInputs {
  exists: boolean;
  /** The stored spot, USD; null when the underlying has no quote. */
  spot: number | null;
  market: GexMarket;
  expiries: GexExpiry[];
  contracts: GexInputRow[];
}

/** The GEX inputs of `symbol` expiring in [from, to] (every root, AM- and PM-settled). One round trip. */
export async function readGexInputs(read: MarketRead, symbol: string, from: string, to: string): Promise<Derived<GexInputs>> {
  const { snapshot, rows } = await readWithSnapshot(read, gexInputsQueries(read.db, symbol, from, to));
  return { snapshot, value: gexInputsOf(rows) };
}

/** The statements of the GEX inputs, for a caller that runs them in a batch of its own (a stream shard). */
export function gexInputsQueries(
  db: Database,
  symbol: string,
  from: string,
  to: string,
): [ReturnType<typeof gexUnderlyingQuery>, ReturnType<typeof marketTermsQuery>, ReturnType<typeof gexContractsQuery>] {
  return [gexUnderlyingQuery(db, symbol), marketTermsQuery(db), gexContractsQuery(db, symbol, from, to)];
}

type GexInputsRows = [
  Awaited<ReturnType<typeof gexUnderlyingQuery>>,
  Awaited<ReturnType<typeof marketTermsQuery>>,
  Awaited<ReturnType<typeof gexContractsQuery>>,
];

export function gexInputsOf([underlying, terms, rows]: GexInputsRows): GexInputs {
  const expiries: GexExpiry[] = [];
  const expiryIndex = new Map<string, number>();
  const contracts: GexInputRow[] = [];
  for (const c of rows) {
    // Without an IV or open interest a contract never carries exposure (gammaBook would drop it).
    if (!(c.iv !== null && c.iv > 0 && c.openInterest !== null && c.openInterest > 0)) continue;
    const key = `${c.expiration}:${c.settlement}`;
    let index = expiryIndex.get(key);
    if (index === undefined) {
      index = expiries.push({ expiration: c.expiration, expiresAt: expiryInstant(c.expiration, c.settlement).getTime() }) - 1;
      expiryIndex.set(key, index);
    }
    contracts.push([index, c.strike, c.side === "call" ? 1 : -1, c.openInterest, c.multiplier, c.iv]);
  }
  return { exists: underlying.length > 0, spot: underlying[0]?.price ?? null, market: marketOf(underlying, terms), expiries, contracts };
}

/**
 * The gamma book of a window at its stored spot as of `at`: each contract's time to expiry runs
 * from `at`, so a contract at or past its expiry instant has none and carries no exposure (it is
 * dropped, like one without IV). An underlying without a quote has an empty book.
 */
export function gexBookAt(inputs: GexInputs, at: Date): { spot: number; book: GammaBook } {
  const spot = inputs.spot ?? 0;
  const years = inputs.expiries.map((e) => yearsUntil(e.expiresAt, at));
  const contracts: GexContract[] =
    spot > 0
      ? inputs.contracts.map(([expiry, strike, sign, openInterest, multiplier, iv]) => ({
          expiration: inputs.expiries[expiry]!.expiration,
          strike,
          side: sign > 0 ? "call" : "put",
          openInterest,
          multiplier,
          iv,
          T: years[expiry]!,
        }))
      : [];
  return { spot, book: gammaBook(contracts, inputs.market) };
}

function marketOf(
  underlying: Awaited<ReturnType<typeof gexUnderlyingQuery>>,
  terms: Awaited<ReturnType<typeof marketTermsQuery>>,
): GexMarket {
  return { r: terms[0]?.rate ?? 0, q: underlying[0]?.dividendYield ?? 0 };
}

function instant(timestamp: string | null): Date | null {
  const iso = isoTimestamp(timestamp);
  return iso === null ? null : new Date(iso);
}
