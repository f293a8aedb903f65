import { sessionOnOrAfter, todayInNewYork } from "../../src/domain/calendar";
import {
  STAT_TYPE,
  nanosToMs,
  type CbboRecord,
  type Cmbp1Record,
  type ConsolidatedLevel,
  type DbnRecord,
  type StatisticRecord,
} from "../dbn";
import type { FeedPosition, MarketEvent, OpenInterestEvent, QuoteEvent, TradeEvent } from "../events";
import type { OpraInstruments } from "./instruments";

/** Why a record gave no event (counted, never fatal), as a run's summary explains it. */
export const DROP_REASONS = {
  "unknown-instrument":
    "no definition or symbol mapping names its instrument (a file of trades needs the day's definitions, its metadata's symbol mappings, or a raw-symbol request's mapped `symbol` field)",
  "not-a-trade": "a record of the trades schema that is not a trade",
  malformed: "a price, size or time the record cannot carry",
} as const;
export type DroppedReason = keyof typeof DROP_REASONS;

/** Records of one receive time on one contract in one millisecond: more cannot be told apart. */
const ORDINALS = 64n;
/** The receive delay a sequence can carry: 2^46 ns ≈ 19.5 h (the sequence column is a bigint read as a JS number). */
const MAX_DELAY_NS = 1n << 46n;

/**
 * The print's sequence number: `flow_prints` keys a print by (contract, execution time in ms,
 * sequence), and tcbbo records carry no venue sequence. The receive delay after the execution's
 * millisecond (ns) pins the record's `ts_recv` within that millisecond; the ordinal tells apart
 * records of one contract in one millisecond that share a `ts_recv` (one venue message filling
 * several orders). The same stream gives the same numbers on every replay. Null when the delay is
 * outside ±2^46 ns or the ordinal reaches 64.
 */
export function printSequence(tsEvent: bigint, tsRecv: bigint, ordinal: number): number | null {
  const delay = tsRecv - (tsEvent / 1_000_000n) * 1_000_000n;
  if (delay <= -MAX_DELAY_NS || delay >= MAX_DELAY_NS || ordinal < 0 || BigInt(ordinal) >= ORDINALS) return null;
  return Number(delay * ORDINALS + BigInt(ordinal));
}

/** Turns decoded OPRA records into market events, keeping what spans records (instrument ids, print ordinals). */
export class OpraEventReader {
  readonly dropped = new Map<DroppedReason, number>();
  private ordinalsAt: bigint | null = null;
  private readonly ordinals = new Map<string, number>();
  private sampledAt: { position: FeedPosition; asOf: Date } | undefined;

  constructor(private readonly instruments: OpraInstruments) {}

  read(record: DbnRecord): MarketEvent | null {
    switch (record.kind) {
      case "definition": {
        const applied = this.instruments.define(record);
        if (!applied) return null;
        return {
          ...applied.contract,
          kind: applied.deleted ? "delisted" : "listed",
          position: position("definition", record.tsRecv),
        };
      }
      case "symbol-mapping":
        this.instruments.map(record);
        return null;
      case "cmbp1":
        return this.trade(record);
      case "cbbo":
        return this.quote(record);
      case "statistic":
        return this.openInterest(record);
      default:
        return null;
    }
  }

  /** The contract a data record is of: its instrument's, or the one its mapped symbol names (a file without definitions). */
  private contractOf(r: DbnRecord) {
    return this.instruments.get(r.instrumentId) ?? (r.symbol === undefined ? undefined : this.instruments.name(r.instrumentId, r.symbol));
  }

  private drop(reason: DroppedReason): null {
    this.dropped.set(reason, (this.dropped.get(reason) ?? 0) + 1);
    return null;
  }

  private trade(r: Cmbp1Record): TradeEvent | null {
    if (r.action !== "T") return this.drop("not-a-trade");
    const contract = this.contractOf(r);
    if (!contract) return this.drop("unknown-instrument");
    if (r.price === null || !(r.price > 0) || !(r.size > 0)) return this.drop("malformed");
    const executedAt = new Date(nanosToMs(r.tsEvent));
    if (this.ordinalsAt !== r.tsRecv) {
      this.ordinalsAt = r.tsRecv;
      this.ordinals.clear();
    }
    const key = `${r.instrumentId}|${executedAt.getTime()}`;
    const ordinal = this.ordinals.get(key) ?? 0;
    this.ordinals.set(key, ordinal + 1);
    const sequenceNumber = printSequence(r.tsEvent, r.tsRecv, ordinal);
    if (sequenceNumber === null) return this.drop("malformed");
    return {
      ...contract,
      kind: "trade",
      position: position("tcbbo", r.tsRecv),
      executedAt,
      sessionDate: todayInNewYork(executedAt),
      sequenceNumber,
      exchangeId: r.publisherId,
      price: r.price,
      size: r.size,
      ...sidesOf(r.levels[0]),
      // tcbbo carries neither the underlying's quote nor trade conditions.
      underlyingPrice: null,
      printClass: "regular",
    };
  }

  private quote(r: CbboRecord): QuoteEvent | null {
    const contract = this.contractOf(r);
    if (!contract) return this.drop("unknown-instrument");
    const [level] = r.levels;
    // A minute's samples share their receive time: one position and one instant for all of them.
    if (this.sampledAt?.position.tsRecv !== r.tsRecv) {
      this.sampledAt = { position: position("cbbo-1m", r.tsRecv), asOf: new Date(nanosToMs(r.tsRecv)) };
    }
    return {
      optionSymbol: contract.optionSymbol,
      contract: contract.contract,
      underlying: contract.underlying,
      isIndex: contract.isIndex,
      settlement: contract.settlement,
      kind: "quote",
      position: this.sampledAt.position,
      asOf: this.sampledAt.asOf,
      bid: bidOf(level),
      ask: askOf(level),
      bidSize: level.bidSz,
      askSize: level.askSz,
      last: r.price !== null && r.price > 0 ? r.price : null,
    };
  }

  /** Open interest (new, defined quantity) for the session it is published before; other statistics give nothing. */
  private openInterest(r: StatisticRecord): OpenInterestEvent | null {
    if (r.statType !== STAT_TYPE.OPEN_INTEREST || r.updateAction !== 1) return null;
    const contract = this.contractOf(r);
    if (!contract) return this.drop("unknown-instrument");
    if (r.quantity === null || !(r.quantity >= 0) || !Number.isSafeInteger(r.quantity)) return this.drop("malformed");
    return {
      ...contract,
      kind: "open-interest",
      position: position("statistics", r.tsRecv),
      sessionDate: sessionOnOrAfter(todayInNewYork(new Date(nanosToMs(r.tsRecv)))),
      openInterest: r.quantity,
    };
  }
}

/** The two sides of a consolidated level; an absent side (undefined price, or an ask of 0) is null, a zero bid is kept. */
function sidesOf(level: ConsolidatedLevel): { bid: number | null; ask: number | null } {
  return { bid: bidOf(level), ask: askOf(level) };
}

const bidOf = (level: ConsolidatedLevel) => (level.bidPx !== null && level.bidPx >= 0 ? level.bidPx : null);
const askOf = (level: ConsolidatedLevel) => (level.askPx !== null && level.askPx > 0 ? level.askPx : null);

function position(schema: FeedPosition["schema"], tsRecv: bigint): FeedPosition {
  return { schema, tsRecv };
}
