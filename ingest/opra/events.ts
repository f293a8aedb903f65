// The normalised market events every feed adapter produces and the ingestion pipeline consumes
// (DESIGN.md §8: one pipeline, adapters per source).
import type { Settlement } from "../../src/domain/market-clock";
import type { OccContract } from "../../src/domain/occ";

/** A listed option as the market tables name it. */
export interface OptionContract {
  /** Compact OCC symbol, e.g. `SPXW220207P04350000`. */
  optionSymbol: string;
  contract: OccContract;
  /** The underlying's symbol (SPX for SPXW contracts). */
  underlying: string;
  isIndex: boolean;
  settlement: Settlement;
}

/**
 * Where an event sits in its feed: the schema's stream and the receive time (ns) the ingestor
 * resumes after. Every event of one receive time is written in the same batch, so resuming after a
 * position never splits them.
 */
export interface FeedPosition {
  schema: "definition" | "statistics" | "cbbo-1m" | "tcbbo";
  tsRecv: bigint;
}

/** A trade with the consolidated NBBO just before it (tcbbo). */
export interface TradeEvent extends OptionContract {
  kind: "trade";
  position: FeedPosition;
  executedAt: Date;
  /** ET date of the trade. */
  sessionDate: string;
  /** With the contract and `executedAt`, identifies the print across replays (`printSequence`). */
  sequenceNumber: number;
  /** Databento publisher id of the venue. */
  exchangeId: number;
  price: number;
  size: number;
  /** Null when the side of the NBBO is absent. */
  bid: number | null;
  ask: number | null;
  /** The feed carries no spot with option trades: the pipeline fills it. */
  underlyingPrice: null;
}

/** The consolidated BBO of a contract at a sample instant (cbbo-1m: only contracts that changed). */
export interface QuoteEvent extends OptionContract {
  kind: "quote";
  position: FeedPosition;
  /** The sample's instant: the end of its minute. */
  asOf: Date;
  bid: number | null;
  ask: number | null;
  bidSize: number;
  askSize: number;
  /** The session's last trade price so far; null before the first trade. */
  last: number | null;
}

/** A contract's open interest at the start of `sessionDate` (statistics, published before the open). */
export interface OpenInterestEvent extends OptionContract {
  kind: "open-interest";
  position: FeedPosition;
  sessionDate: string;
  openInterest: number;
}

/** A contract entering or leaving the day's universe (definition). */
export interface ContractEvent extends OptionContract {
  kind: "listed" | "delisted";
  position: FeedPosition;
}

export type MarketEvent = TradeEvent | QuoteEvent | OpenInterestEvent | ContractEvent;
