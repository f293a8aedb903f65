import { bsm } from "../../src/analytics/black-scholes";
import { yearsToExpiry, type Settlement } from "../../src/domain/market-clock";
import { formatOsi, parseOcc, type OccContract } from "../../src/domain/occ";
import {
  RTYPE,
  STAT_TYPE,
  type CbboRecord,
  type Cmbp1Record,
  type DbnRecord,
  type DefinitionRecord,
  type StatisticRecord,
} from "../../ingest/dbn";
import type { TypedQuery } from "../../ingest/db/database";
import { Random } from "./random";

/** One contract of the stream, as the seeded market holds it. */
interface StreamContract {
  instrumentId: number;
  contract: OccContract;
  underlying: string;
  settlement: Settlement;
  /** Its volatility: the quotes move with the spot at this IV. */
  sigma: number;
  openInterest: number;
}

/** A market to stream: its contracts, each underlying's spot and dividend yield, the rate. */
export interface StreamMarket {
  rate: number;
  contracts: StreamContract[];
  underlyings: Map<string, { spot: number; q: number }>;
}

/** The OPRA publisher id records carry (OPRA consolidated). */
const OPRA_PUBLISHER = 30;
const NS_PER_MS = 1_000_000n;
const MINUTE_NS = 60_000n * NS_PER_MS;
/** Per-minute volatility of every spot (≈ 25 % a year over 390-minute sessions). */
const SPOT_SIGMA_PER_MINUTE = 0.25 / Math.sqrt(252 * 390);
/** A contract's volatility when neither it nor its underlying's chain has an IV. */
const FALLBACK_SIGMA = 0.3;

/**
 * The market a stream starts from: every contract with a two-sided quote, in a stable order (its
 * instrument ids), priced at its IV — or, where none solved (deep in the money near expiry), at the
 * median IV of its underlying's chain, so every quote moves with its spot.
 */
export async function loadStreamMarket(query: TypedQuery): Promise<StreamMarket> {
  const [state, spots, quotes, medians] = await Promise.all([
    query(`select risk_free_rate from market_state where id = 1`),
    query(
      `select e.symbol, e.price, coalesce(u.dividend_yield, 0) as q from equity_quotes e join underlyings u using (symbol) where e.price > 0`,
    ),
    query(
      `select option_symbol, underlying, settlement, iv, coalesce(open_interest, 0) as open_interest from option_quotes
        where bid is not null and ask is not null order by option_symbol`,
    ),
    query(`select underlying, percentile_cont(0.5) within group (order by iv) as iv from option_quotes where iv > 0 group by underlying`),
  ]);
  const underlyings = new Map(spots.rows.map((r) => [r.symbol as string, { spot: Number(r.price), q: Number(r.q) }]));
  const medianIv = new Map(medians.rows.map((r) => [r.underlying as string, Number(r.iv)]));
  const contracts: StreamContract[] = [];
  for (const r of quotes.rows) {
    const contract = parseOcc(r.option_symbol as string);
    if (!contract || !underlyings.has(r.underlying as string)) continue;
    const iv = r.iv === null ? 0 : Number(r.iv);
    contracts.push({
      instrumentId: contracts.length + 1,
      contract,
      underlying: r.underlying as string,
      settlement: r.settlement as Settlement,
      sigma: iv > 0 ? iv : (medianIv.get(r.underlying as string) ?? FALLBACK_SIGMA),
      openInterest: Number(r.open_interest),
    });
  }
  return { rate: Number(state.rows[0]?.risk_free_rate ?? 0.04), contracts, underlyings };
}

/** Each instrument id's raw (OSI) symbol, as the gateway names instruments in its symbol mappings. */
export function rawSymbols(market: StreamMarket): (instrumentId: number) => string | undefined {
  const symbols = new Map(market.contracts.map((c) => [c.instrumentId, formatOsi(c.contract)]));
  return (instrumentId) => symbols.get(instrumentId);
}

export interface SessionOptions {
  /** The session's first record (ns since the epoch): definitions, then open interest a second later, then a sample at each whole minute. */
  start: bigint;
  /** Trades per second across the market, on average. */
  tradesPerSecond: number;
  /** Minutes of samples and trades; unbounded when omitted (a live market). */
  minutes?: number;
  /**
   * Which whole minutes (ns) carry a sample of every contract; default: all. Between them trades
   * only: the benchmark replays a day's trades at many times real time after the opening sample,
   * then samples every minute.
   */
  sampled?: (minute: bigint) => boolean;
  seed?: number;
}

const nsOf = (ms: number) => BigInt(Math.round(ms)) * NS_PER_MS;

/**
 * A session of the market as Databento's OPRA feed carries it, in receive-time order: each
 * contract's definition, its open interest (statistics), then every minute the trades of that
 * minute (tcbbo, with the consolidated BBO before each) and a cbbo-1m sample of every contract
 * (the spots move each minute, so market makers' quotes all change). Spots follow a random walk;
 * quotes are Black–Scholes–Merton at each contract's IV, a spread around the value. Deterministic
 * for a seed and start, so a replay from any point gives the same records.
 */
export function* sessionRecords(market: StreamMarket, options: SessionOptions): Generator<DbnRecord, void, undefined> {
  const random = new Random(options.seed ?? 1);
  const { start } = options;
  for (const c of market.contracts) yield definition(c, start);
  for (const c of market.contracts) yield openInterest(c, start + 1_000n * NS_PER_MS);
  const spots = new Map([...market.underlyings].map(([symbol, u]) => [symbol, u.spot]));
  // A trade meets the quote of the last whole minute (the session's start at first), priced when traded.
  let quotedAt = Number(start / NS_PER_MS);
  // Samples at each whole minute after the start, as the vendor's cbbo-1m; trades from after the statistics.
  let from = Number(start / NS_PER_MS) + 1_000;
  let to = Number(((start / MINUTE_NS + 1n) * MINUTE_NS) / NS_PER_MS);
  for (let minute = 1; options.minutes === undefined || minute <= options.minutes; minute++, from = to, to += 60_000) {
    // Received 1 ms after execution: a trade executes at least 1 ms before the minute's sample.
    for (let at = from + exponential(random, options.tradesPerSecond); at < to - 1; at += exponential(random, options.tradesPerSecond)) {
      const i = random.int(0, market.contracts.length - 1);
      const c = market.contracts[i]!;
      const quote = quoteOf(market, c, spots.get(c.underlying)!, quotedAt);
      if (!(quote.ask > 0.05)) continue;
      yield trade(c, quote, at, random);
    }
    for (const [symbol, spot] of spots) spots.set(symbol, spot * Math.exp(SPOT_SIGMA_PER_MINUTE * random.normal()));
    quotedAt = to;
    if (options.sampled && !options.sampled(nsOf(to))) continue;
    for (const c of market.contracts) yield sample(c, quoteOf(market, c, spots.get(c.underlying)!, to), to);
  }
}

function exponential(random: Random, perSecond: number): number {
  return (-Math.log(1 - random.next()) / perSecond) * 1000;
}

interface Quote {
  bid: number;
  ask: number;
}

/** A market maker's quote: the BSM value ± half a spread of 4 % (at least a cent each side), on the cent. */
function quoteOf(market: StreamMarket, c: StreamContract, spot: number, atMs: number): Quote {
  const T = yearsToExpiry(c.contract.expiration, c.settlement, new Date(atMs));
  const value =
    T > 0
      ? bsm({
          S: spot,
          K: c.contract.strike,
          T,
          r: market.rate,
          q: market.underlyings.get(c.underlying)!.q,
          sigma: c.sigma,
          side: c.contract.side,
        }).price
      : Math.max(0, c.contract.side === "call" ? spot - c.contract.strike : c.contract.strike - spot);
  const half = Math.max(0.01, value * 0.02);
  return { bid: Math.max(0, Math.round((value - half) * 100) / 100), ask: Math.round((value + half) * 100) / 100 + 0.01 };
}

const header = (rtype: number, instrumentId: number, tsEvent: bigint) => ({ rtype, publisherId: OPRA_PUBLISHER, instrumentId, tsEvent });
const level = (q: Quote) =>
  [{ bidPx: q.bid, askPx: q.ask, bidSz: 10, askSz: 10, bidPb: OPRA_PUBLISHER, askPb: OPRA_PUBLISHER }] as CbboRecord["levels"];

function definition(c: StreamContract, at: bigint): DefinitionRecord {
  const [year, month, day] = c.contract.expiration.split("-").map(Number) as [number, number, number];
  return {
    kind: "definition",
    ...header(RTYPE.INSTRUMENT_DEF, c.instrumentId, at),
    tsRecv: at,
    rawSymbol: formatOsi(c.contract),
    underlying: c.underlying,
    asset: c.contract.root,
    instrumentClass: c.contract.side === "call" ? "C" : "P",
    strikePrice: c.contract.strike,
    strikePriceCurrency: "USD",
    expiration: nsOf(Date.parse(`${c.contract.expiration}T21:00:00Z`)),
    activation: null,
    minPriceIncrement: 0.01,
    displayFactor: 1,
    highLimitPrice: null,
    lowLimitPrice: null,
    unitOfMeasureQty: 100,
    contractMultiplier: 100,
    underlyingId: 0,
    rawInstrumentId: BigInt(c.instrumentId),
    currency: "USD",
    exchange: "OPRA",
    cfi: c.contract.side === "call" ? "OCASPS" : "OPASPS",
    securityType: "OOF",
    securityUpdateAction: "A",
    channelId: 0,
    maturityYear: year,
    maturityMonth: month,
    maturityDay: day,
  };
}

function openInterest(c: StreamContract, at: bigint): StatisticRecord {
  return {
    kind: "statistic",
    ...header(RTYPE.STATISTICS, c.instrumentId, at),
    tsRecv: at,
    tsRef: null,
    price: null,
    quantity: c.openInterest,
    sequence: 0,
    tsInDelta: 0,
    statType: STAT_TYPE.OPEN_INTEREST,
    channelId: 0,
    updateAction: 1,
    statFlags: 0,
  };
}

function trade(c: StreamContract, q: Quote, atMs: number, random: Random): Cmbp1Record {
  const side = random.chance(0.5) ? "B" : "A";
  const price = random.chance(0.7) ? (side === "B" ? q.ask : q.bid) : Math.round(((q.bid + q.ask) / 2) * 100) / 100;
  const at = nsOf(atMs);
  return {
    kind: "cmbp1",
    ...header(RTYPE.TCBBO, c.instrumentId, at),
    tsRecv: at + NS_PER_MS,
    price: Math.max(price, 0.01),
    size: random.chance(0.9) ? random.int(1, 20) : random.int(50, 500),
    action: "T",
    side,
    flags: 0,
    tsInDelta: 0,
    levels: level(q),
  };
}

function sample(c: StreamContract, q: Quote, atMs: number): CbboRecord {
  const at = nsOf(atMs);
  return {
    kind: "cbbo",
    ...header(RTYPE.CBBO_1M, c.instrumentId, at),
    tsRecv: at,
    price: null,
    size: 0,
    side: null,
    flags: 0,
    levels: level(q),
  };
}
