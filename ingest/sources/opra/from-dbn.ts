import { sessionOnOrAfter, todayInNewYork } from "../../../src/domain/calendar";
import {
  STAT_TYPE,
  nanosToMs,
  UNDEF_TIMESTAMP,
  type CbboRecord,
  type Cmbp1Record,
  type ConsolidatedLevel,
  type DbnRecord,
  type StatisticRecord,
} from "../../dbn";
import type { FeedPosition, MarketEvent, OpenInterestEvent, QuoteEvent, TradeEvent } from "../../events";
import type { OpraInstruments } from "./instruments";

/** Why a record gave no event (counted, never fatal), as a run's summary explains it. */
export const DROP_REASONS = {
  "unknown-instrument":
    "no definition or symbol mapping names its instrument (a file of trades needs the day's definitions, its metadata's symbol mappings, or a raw-symbol request's mapped `symbol` field)",
  "not-a-trade": "a record of the trades schema that is not a trade",
  malformed: "a price, size or time the record cannot carry",
  "out-of-range": "a value no column can hold",
  "implausible-time": "a time that cannot be the feed's (executed far from its receipt; live: received far from the wall clock)",
} as const;
export type DroppedReason = keyof typeof DROP_REASONS;
/** A record whose value no column can hold (`out-of-range`), or whose time cannot be the feed's (`implausible-time`). */
export type OutOfBounds = Extract<DroppedReason, "out-of-range" | "implausible-time">;

const MINUTE_NS = 60_000_000_000n;
const HOUR_NS = 60n * MINUTE_NS;
/**
 * How far a trade's execution (`ts_event`) may lie from its receipt (`ts_recv`). On OPRA,
 * `ts_event` is the block timestamp OPRA stamps as it disseminates, `ts_recv` Databento's capture of
 * that packet in the same data centre: milliseconds apart (0.1–50 ms in Databento's own samples).
 * Up to 5 minutes before its receipt leaves room for any backlog; after it, only clock skew is
 * possible, 1 minute at most — so a trade's session is its receive date's but within a minute of
 * midnight, and one record can never reach the next session (and its roll) by its stamp alone.
 */
export const TRADE_EXECUTED_BEFORE_NS = 5n * MINUTE_NS;
export const TRADE_EXECUTED_AFTER_NS = MINUTE_NS;
/**
 * How far a live record's receive time may lie from the wall clock. Ahead: 5 minutes — Databento
 * stamps `ts_recv` when it captures the packet, before sending it, so only a wrong clock or a wrong
 * record puts it ahead of ours (NTP keeps the clocks within a second). Behind: 25 hours — intraday
 * replay reaches back 24 hours at most.
 */
export const LIVE_AHEAD_NS = 5n * MINUTE_NS;
export const LIVE_BEHIND_NS = 25n * HOUR_NS;
/** How long the wall clock read is reused (ms): a minute's 1.4 M samples do not each read it. */
const WALL_CLOCK_REUSE_MS = 100;
/** The newest receive time a position holds (`feed_positions.ts_recv` is an int8). */
const MAX_POSITION_NS = (1n << 63n) - 1n;
/** `flow_prints.size` and the open interest columns are int4, `flow_prints.exchange_id` an int2. */
const INT4_MAX = 2 ** 31 - 1;
const INT2_MAX = 2 ** 15 - 1;

export interface OpraReaderOptions {
  /**
   * The wall clock, on a live feed: a record received far from it (`LIVE_AHEAD_NS`,
   * `LIVE_BEHIND_NS`) is dropped and moves no clock. A replay of files has none (a file's times are its own).
   */
  now?: () => Date;
  /** Each record dropped `out-of-range` or `implausible-time`, with what was wrong (for the log). */
  onDropped?: (reason: OutOfBounds, record: DbnRecord, why: string) => void;
}

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

  private wall: { readAt: number; from: bigint; to: bigint } | undefined;

  constructor(
    private readonly instruments: OpraInstruments,
    private readonly options: OpraReaderOptions = {},
  ) {}

  /**
   * Whether a record's receive time (a heartbeat's event time) may move the feed's clock: a position
   * can hold it and, on a live feed, it is near the wall clock. A symbol mapping never does: it names
   * an instrument, and its time is not a receive time of the feed.
   */
  timely(record: DbnRecord): boolean {
    if (record.kind === "symbol-mapping") return false;
    const at = "tsRecv" in record ? record.tsRecv : record.tsEvent;
    return at >= 0n && at <= MAX_POSITION_NS && this.nearWallClock(at);
  }

  read(record: DbnRecord): MarketEvent | null {
    switch (record.kind) {
      case "definition": {
        if (this.receivedOutOfBounds(record, record.tsRecv)) return null;
        // PostgreSQL text cannot hold U+0000 (JSON lines can carry it; a binary field ends at it).
        if (record.underlying.includes("\u0000") || record.rawSymbol.includes("\u0000")) {
          return this.outOfBounds("out-of-range", record, "a symbol with U+0000, which no text column holds");
        }
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
      case "system":
      case "error":
        // A gateway's heartbeat stamped far from the wall clock: its clock is wrong, not the market's.
        if (!this.nearWallClock(record.tsEvent)) this.outOfBounds("implausible-time", record, this.fromWallClock(record.tsEvent));
        return null;
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

  private outOfBounds(reason: OutOfBounds, record: DbnRecord, why: string): null {
    this.drop(reason);
    this.options.onDropped?.(reason, record, why);
    return null;
  }

  /** Drops a record whose receive time no position can hold or, live, that is far from the wall clock. */
  private receivedOutOfBounds(record: DbnRecord, tsRecv: bigint): boolean {
    if (tsRecv < 0n || tsRecv > MAX_POSITION_NS) {
      this.outOfBounds("out-of-range", record, `ts_recv ${tsRecv} is outside a feed position (int8)`);
      return true;
    }
    if (this.nearWallClock(tsRecv)) return false;
    this.outOfBounds("implausible-time", record, this.fromWallClock(tsRecv));
    return true;
  }

  private nearWallClock(at: bigint): boolean {
    const now = this.options.now;
    if (!now) return true;
    const readAt = performance.now();
    if (!this.wall || readAt - this.wall.readAt >= WALL_CLOCK_REUSE_MS) {
      const wall = BigInt(now().getTime()) * 1_000_000n;
      this.wall = { readAt, from: wall - LIVE_BEHIND_NS, to: wall + LIVE_AHEAD_NS };
    }
    return at >= this.wall.from && at <= this.wall.to;
  }

  private fromWallClock(at: bigint): string {
    return `received ${instant(at)}, the wall clock ${this.options.now?.().toISOString()} (at most 5 min ahead, 25 h behind)`;
  }

  private trade(r: Cmbp1Record): TradeEvent | null {
    if (r.action !== "T") return this.drop("not-a-trade");
    const contract = this.contractOf(r);
    if (!contract) return this.drop("unknown-instrument");
    if (r.price === null || !(r.price > 0) || !(r.size > 0)) return this.drop("malformed");
    if (this.receivedOutOfBounds(r, r.tsRecv)) return null;
    if (r.tsEvent > r.tsRecv + TRADE_EXECUTED_AFTER_NS || r.tsEvent < r.tsRecv - TRADE_EXECUTED_BEFORE_NS) {
      return this.outOfBounds(
        "implausible-time",
        r,
        `executed ${instant(r.tsEvent)}, received ${instant(r.tsRecv)} (at most 5 min before, 1 min after)`,
      );
    }
    if (!Number.isInteger(r.size) || r.size > INT4_MAX) {
      return this.outOfBounds("out-of-range", r, `size ${r.size} (flow_prints.size is an int4)`);
    }
    if (!Number.isInteger(r.publisherId) || r.publisherId < 0 || r.publisherId > INT2_MAX) {
      return this.outOfBounds("out-of-range", r, `publisher_id ${r.publisherId} (flow_prints.exchange_id is an int2)`);
    }
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
    if (this.receivedOutOfBounds(r, r.tsRecv)) return null;
    // A sample's ts_event is its contract's last trade of the session (undefined without one): never after the
    // minute it samples. It may be hours before, and is not used; its time is ts_recv, the minute's end.
    if (r.tsEvent !== UNDEF_TIMESTAMP && r.tsEvent > r.tsRecv + TRADE_EXECUTED_AFTER_NS) {
      return this.outOfBounds("implausible-time", r, `last trade ${instant(r.tsEvent)} after the sample's minute ${instant(r.tsRecv)}`);
    }
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
    if (this.receivedOutOfBounds(r, r.tsRecv)) return null;
    if (r.quantity > INT4_MAX) return this.outOfBounds("out-of-range", r, `open interest ${r.quantity} (open_interest is an int4)`);
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

/** A time for the log: ISO 8601 where a date can show it, else the nanoseconds. */
function instant(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : `${ns} ns`;
}
