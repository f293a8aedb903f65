// The normalised market events every feed adapter produces and the ingestion pipeline consumes
// (ARCHITECTURE.md, "The tree" and "Flow 2: a trade": one pipeline, an adapter per source in
// ingest/sources/).
import type { Settlement } from "../src/domain/market-clock";
import type { PrintClass } from "../src/analytics/flow";
import type { OccContract } from "../src/domain/occ";

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

/** An option trade with the NBBO at the moment it printed, from whichever source. */
export interface OptionTrade extends OptionContract {
  executedAt: Date;
  /** ET date of the trade. */
  sessionDate: string;
  /** With the contract and `executedAt`, identifies the print across reloads and replays. */
  sequenceNumber: number;
  /** The source's venue id (Cboe DataShop exchange id, Databento publisher id). */
  exchangeId: number;
  price: number;
  size: number;
  /** Null when that side of the NBBO is absent. */
  bid: number | null;
  ask: number | null;
  /** Spot at the trade where the source gives one (mid of the underlying's quote). */
  underlyingPrice: number | null;
  /** Regular unless the source flags the print as multi-leg or canceled. */
  printClass: PrintClass;
  /** The venue's trade condition, where the source gives one. */
  conditionId?: number;
  /** IV (decimal) and delta computed by the vendor, where the source carries them. */
  vendorGreeks?: { iv: number; delta: number } | null;
}

/** A trade with the consolidated NBBO just before it (tcbbo). */
export interface TradeEvent extends OptionTrade {
  kind: "trade";
  position: FeedPosition;
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
  /** What the source states beyond the NBBO, where it does (a vendor's closing quote table); a feed's sample states nothing. */
  stated?: StatedQuote;
}

/** A source's own figures for a quoted contract, taken as given rather than derived by the pipeline. */
export interface StatedQuote {
  /** The underlying's price the sample is priced at: none is implied from the chain. */
  spot: number;
  /** The vendor's IV (decimal); null: solved from the mid, as for a feed's sample. */
  iv: number | null;
  /** The session's volume and open interest, which a feed's trades and statistics give otherwise. */
  volume: number;
  openInterest: number;
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
