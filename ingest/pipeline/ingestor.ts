import { applyOpenInterest, stagedSessions, stageOpenInterest } from "../contracts/write-open-interest";
import { writeDefinitions } from "../contracts/write-definitions";
import type { ContractEvent, MarketEvent, OpenInterestEvent, QuoteEvent, TradeEvent } from "../events";
import { PrintStatistics } from "../flow/print-statistics";
import { flowPartitionName } from "../../src/market/flow-partitions";
import { loadQuoteMarket } from "../quotes/load-quote-market";
import { writeQuotes } from "../quotes/write-quotes";
import { sessionOf } from "../session/move-session";
import { SessionBarrier } from "../session/session-barrier";
import type { IngestDatabase } from "../db/database";
import { Lane, type LaneOptions } from "./lane";
import { isLogged, type IngestLog } from "../log";
import { isPending, readPositions, type Positions } from "../db/positions";
import { writeTrades } from "../flow/write-trades";

/** A log line's fields (JSON lines on stdout). */
export interface IngestorOptions {
  /** The feed's name in `feed_positions`. */
  feed: string;
  log: IngestLog;
  /** Wall time after which the newest receive time is taken as complete although the feed has not moved past it. */
  settleMs?: number;
  /** Feed time without a new statistic after which the staged open interest is switched in (ns). */
  openInterestQuietNs?: bigint;
  /**
   * Events a lane queues beyond which `accept` waits for its writes: trades and contracts 500,000;
   * quotes 3,000,000, two whole-market minutes, so a minute being written never stops the reader
   * from reaching the trades that follow it in the feed.
   */
  maxQueued?: { trades: number; quotes: number; contracts: number };
  /** Least wall time between two writes of trades (ms): at real time, a few batches a second rather than a transaction per trade. */
  tradeIntervalMs?: number;
  /**
   * Trades a write takes at most (whole receive times): behind a backlog, prints become visible
   * a batch of about a second at a time rather than after one long write of tens of thousands.
   */
  maxTradeBatch?: number;
  lane?: Partial<LaneOptions>;
  /** Called after each committed batch of trades, e.g. to wake the stream shards (ingest/admin-api/stream-waker.ts). */
  onTradesCommitted?: () => void;
}

type ContractsEvent = ContractEvent | OpenInterestEvent;

/** The ingestor's lanes: trades, minute quotes, the contract universe (definitions and open interest). */
export type LaneName = "trades" | "quotes" | "contracts";
export const LANES: readonly LaneName[] = ["trades", "quotes", "contracts"];

/** How far a source has delivered: a lane's receive times before `at` are complete; `arrival` (wall ms) says when it last spoke. */
interface FeedClock {
  at: bigint;
  arrival: number;
}

const SECOND_NS = 1_000_000_000n;

/**
 * The ingestion pipeline's core: normalised events in, receive-time order; three lanes out, each
 * writing with its feed position in the same transaction — trades (flow prints, within a second),
 * minute quotes (one transaction per minute's samples), and the contract universe (definitions;
 * open interest staged, then switched in whole once the statistics have gone quiet, or at the end).
 * Events at or before the stored positions are dropped on arrival.
 */
export class Ingestor {
  /**
   * Each lane's clock, moved by the records of the source that feeds it: one clock for a single
   * stream; the trades lane its own when trades come in a session of their own (a minute's samples
   * then never stand in front of them on the wire).
   */
  private readonly clocks: Record<LaneName, FeedClock> = {
    trades: { at: 0n, arrival: 0 },
    quotes: { at: 0n, arrival: 0 },
    contracts: { at: 0n, arrival: 0 },
  };
  /** Set by `drain`: at the feed's end every queued event is complete; when stopped, the newest receive time may not be. */
  private draining: { endOfFeed: boolean } | null = null;
  private lastStatistic: bigint;
  private staged: string[];
  /** The open-interest switch under way; the contracts lane waits for it. */
  private applying: Promise<void> | null = null;
  private applyNotBefore = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters: (() => void)[] = [];
  private readonly printStatistics: PrintStatistics;
  private readonly trades: Lane<TradeEvent>;
  private readonly quotes: Lane<QuoteEvent>;
  private readonly contracts: Lane<ContractsEvent>;
  /** Events accepted, skipped as already written, and refused by the database for their data (`unstorable`, not stored). */
  readonly counts = { accepted: 0, skipped: 0, unstorable: 0 };

  private constructor(
    private readonly db: IngestDatabase,
    private readonly options: Required<Omit<IngestorOptions, "lane" | "onTradesCommitted">> &
      Pick<IngestorOptions, "onTradesCommitted"> & { lane: LaneOptions },
    /** Where the feed resumes: the positions stored when the ingestor started. */
    readonly startPositions: Positions,
    market: Awaited<ReturnType<typeof loadQuoteMarket>>,
    staged: string[],
    /** Trades and quotes of the session after the stored one wait for its roll, if it was not rolled at its close. */
    private readonly barrier: SessionBarrier,
  ) {
    const { feed } = options;
    const lane: LaneOptions = {
      ...options.lane,
      onRefused: (name, event, error) => {
        if (isLogged(++this.counts.unstorable)) options.lane.onRefused(name, event, error);
      },
    };
    this.staged = staged;
    this.lastStatistic = startPositions.get("statistics") ?? 0n;
    // Trades are priced with the yields the quotes are solved with, so a print's IV matches its chain's.
    const pricing = { rate: market.rate, dividendYield: 0, dividendYields: market.dividendYields };
    this.printStatistics = new PrintStatistics(
      async (sessions) => {
        for (const session of sessions) await db.typedQuery(`analyze ${flowPartitionName(session)}`);
      },
      (error) => options.log({ event: "ingest_analyze_failed", error: error instanceof Error ? error.message : String(error) }),
    );
    this.trades = new Lane(
      "trades",
      async (batch, through) => {
        const { prints } = await writeTrades(db, feed, batch, pricing, through);
        this.printStatistics.written(prints.map((p) => p.trade.sessionDate));
        if (prints.length > 0) options.onTradesCommitted?.();
      },
      { ...lane, minIntervalMs: options.tradeIntervalMs, maxBatch: Math.min(lane.maxBatch, options.maxTradeBatch) },
      (trade) => barrier.holds(trade.executedAt.getTime()),
    );
    this.quotes = new Lane(
      "quotes",
      async (batch, through) => {
        await writeQuotes(db, feed, batch, market, through);
        barrier.moved(sessionOf(batch.at(-1)!.asOf));
      },
      lane,
      (quote) => barrier.holds(quote.asOf.getTime()),
    );
    this.contracts = new Lane("contracts", (batch, through) => this.writeContracts(batch, through), lane);
  }

  static async start(db: IngestDatabase, options: IngestorOptions): Promise<Ingestor> {
    const log = options.log;
    const lane: LaneOptions = {
      maxBatch: 50_000,
      retryMs: 500,
      maxRetryMs: 10_000,
      onWritten: (name, events, ms, newest) =>
        log({ event: "ingest_written", lane: name, events, ms: Math.round(ms), newest: String(newest) }),
      onFailed: (name, error, retryInMs) =>
        log({ event: "ingest_write_failed", lane: name, error: error instanceof Error ? error.message : String(error), retryInMs }),
      onRefused: (name, event, error) =>
        log({
          event: "ingest_dropped",
          reason: "unstorable",
          lane: name,
          schema: event.position.schema,
          tsRecv: String(event.position.tsRecv),
          ...("optionSymbol" in event ? { optionSymbol: event.optionSymbol } : {}),
          error: error instanceof Error ? error.message : String(error),
        }),
      ...options.lane,
    };
    const ingestor = new Ingestor(
      db,
      {
        settleMs: 100,
        openInterestQuietNs: 30n * SECOND_NS,
        maxQueued: { trades: 500_000, quotes: 3_000_000, contracts: 500_000 },
        tradeIntervalMs: 100,
        maxTradeBatch: 5_000,
        ...options,
        lane,
      },
      await readPositions(db.typedQuery, options.feed),
      await loadQuoteMarket(db.typedQuery),
      await stagedSessions(db.typedQuery),
      await SessionBarrier.of(db),
    );
    ingestor.timer = setInterval(() => ingestor.pump(), Math.max(10, ingestor.options.settleMs / 2));
    return ingestor;
  }

  /**
   * Queues an event for its lane. While too many are queued it returns a promise to wait on (the
   * source then reads no further); otherwise nothing, so a minute's million events cost no promise each.
   */
  accept(event: MarketEvent, lanes: readonly LaneName[] = LANES): Promise<void> | undefined {
    this.tick(event.position.tsRecv, lanes);
    if (!isPending(this.startPositions, event.position)) {
      this.counts.skipped++;
      return;
    }
    this.counts.accepted++;
    if (event.kind === "trade") this.trades.push(event);
    else if (event.kind === "quote") this.quotes.push(event);
    else this.contracts.push(event);
    this.pump();
    const caps = this.options.maxQueued;
    const [lane, cap] =
      event.kind === "trade"
        ? [this.trades, caps.trades]
        : event.kind === "quote"
          ? [this.quotes, caps.quotes]
          : [this.contracts, caps.contracts];
    return lane.queued >= cap ? this.room(lane, cap) : undefined;
  }

  private async room(lane: { queued: number }, cap: number): Promise<void> {
    while (lane.queued >= cap) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /**
   * Moves the clock of the lanes a source feeds (every record, heartbeats included): their receive
   * times before it are complete.
   */
  tick(tsRecv: bigint, lanes: readonly LaneName[] = LANES): void {
    const now = performance.now();
    let moved = false;
    for (const lane of lanes) {
      const clock = this.clocks[lane];
      clock.arrival = now;
      if (tsRecv > clock.at) [clock.at, moved] = [tsRecv, true];
    }
    if (moved) this.pump();
  }

  /**
   * Writes what is queued and stops the timer. At the end of the feed (a replay read to its end)
   * everything is written and staged open interest is switched in. A stopped ingestor writes only
   * the receive times the feed has moved past (the newest may be incomplete: it comes again when
   * the feed resumes after the stored position) and leaves open interest staged, since the rest
   * of the day's statistics may follow.
   */
  async drain({ endOfFeed }: { endOfFeed: boolean }): Promise<void> {
    this.draining = { endOfFeed };
    this.trades.stopPacing();
    for (;;) {
      this.pump();
      const busy = [this.trades.busy, this.quotes.busy, this.contracts.busy, this.applying, this.barrier.busy].filter((p) => p !== null);
      if (busy.length === 0) break;
      await Promise.all(busy);
    }
    await this.printStatistics.settled();
    if (endOfFeed) await this.applyStagedOpenInterest();
    else if (this.queued() > 0) this.options.log({ event: "ingest_stopped", unwritten: this.queued() });
    clearInterval(this.timer);
  }

  /** After a lane's write: the readers waiting for room go on, and the lanes take what is complete. One function, not one per event. */
  private readonly written = () => {
    for (const resolve of this.waiters.splice(0)) resolve();
    this.pump();
  };

  private queued(): number {
    return this.trades.queued + this.quotes.queued + this.contracts.queued;
  }

  /** A quiet source's lane writes all it holds; a stopped ingestor only what the feed has moved past. */
  private settled(lane: LaneName, now: number): boolean {
    return !this.draining && now - this.clocks[lane].arrival >= this.options.settleMs;
  }

  /** Runs once per event read: no closure is made here (a minute's 1.4 M calls). */
  private pump(): void {
    // Nothing is written while a session is rolled: it reads the market as the lanes left it.
    if (this.barrier.rollingNow) return;
    const ended = this.draining?.endOfFeed ?? false;
    const now = performance.now();
    if (this.barrier.ready && this.passDue(now, ended)) {
      void this.barrier.pass(this.db, this.options.log, this.options.lane.maxRetryMs).then(this.written);
      return;
    }
    this.trades.pump(this.clocks.trades.at, this.settled("trades", now), this.written, ended);
    this.quotes.pump(this.clocks.quotes.at, this.settled("quotes", now), this.written, ended);
    if (!this.applying) this.contracts.pump(this.clocks.contracts.at, this.settled("contracts", now), this.written, ended);
    const quiet = this.clocks.contracts.at - this.lastStatistic >= this.options.openInterestQuietNs && now >= this.applyNotBefore;
    if (this.staged.length > 0 && quiet && !this.draining && !this.contracts.busy && this.contracts.queued === 0) {
      void this.applyStagedOpenInterest();
    }
  }

  /**
   * Whether the next session's trades and quotes (some lane holds one) may go through the session
   * barrier, the stored session rolled first: every lane has written what it was given before the
   * first held event, none is writing (nor switching in open interest), and no source can still
   * bring more of that time (its clock is past it, it has gone quiet or never spoken, or the feed
   * has ended). A stopped ingestor leaves the roll to its next run.
   */
  private passDue(now: number, ended: boolean): boolean {
    if (!(this.trades.held || this.quotes.held) || this.applying || (this.draining && !ended)) return false;
    const held = [this.trades, this.quotes].filter((lane) => lane.held);
    const at = held.reduce(
      (first, lane) => (lane.head!.position.tsRecv < first ? lane.head!.position.tsRecv : first),
      held[0]!.head!.position.tsRecv,
    );
    const lanes = { trades: this.trades, quotes: this.quotes, contracts: this.contracts };
    return LANES.every((name) => {
      const lane = lanes[name];
      const before = lane.queued > 0 && !lane.held && lane.head!.position.tsRecv < at;
      return !lane.busy && !before && (ended || this.clocks[name].at >= at || this.settled(name, now));
    });
  }

  /** Definitions and statistics in arrival order, each run of one kind by its writer. */
  private async writeContracts(batch: ContractsEvent[], through: bigint | undefined): Promise<void> {
    for (let start = 0; start < batch.length;) {
      const kind = batch[start]!.kind === "open-interest" ? "open-interest" : "definition";
      let end = start;
      while (end < batch.length && (batch[end]!.kind === "open-interest" ? "open-interest" : "definition") === kind) end++;
      const run = batch.slice(start, end);
      if (kind === "definition") await writeDefinitions(this.db, this.options.feed, run as ContractEvent[], through);
      else {
        const statistics = run as OpenInterestEvent[];
        await stageOpenInterest(this.db, this.options.feed, statistics, through);
        this.lastStatistic = statistics.at(-1)!.position.tsRecv;
        this.staged = [...new Set([...this.staged, ...statistics.map((s) => s.sessionDate)])].sort();
      }
      start = end;
    }
  }

  /** Switches in the newest staged session's open interest (older staged sessions are cleared unserved). */
  private applyStagedOpenInterest(): Promise<void> {
    const session = this.staged.at(-1);
    if (session === undefined) return Promise.resolve();
    this.applying ??= applyOpenInterest(this.db, session)
      .then(({ applied }) => {
        this.staged = this.staged.filter((s) => s > session);
        this.options.log({ event: "ingest_open_interest", session, applied });
      })
      .catch((error: unknown) => {
        this.applyNotBefore = performance.now() + this.options.lane.maxRetryMs;
        this.options.log({
          event: "ingest_write_failed",
          lane: "open-interest",
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        this.applying = null;
        this.pump();
      });
    return this.applying;
  }
}
