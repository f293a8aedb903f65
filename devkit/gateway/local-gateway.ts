import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { encodeMetadata, encodeRecord, ERROR_CODE, RTYPE, STYPES, SYSTEM_CODE, type DbnRecord } from "../../ingest/dbn";
import { ReadAhead, type Encoded } from "./read-ahead";
import {
  API_KEY_LENGTH,
  cramReply,
  DEFAULT_HEARTBEAT_INTERVAL_S,
  formatFields,
  LIVE_SCHEMAS,
  OPRA_DATASET,
  parseFields,
  replaysByReceiveTime,
  SCHEMA_RTYPE,
  schemaOf,
  type LiveSchema,
} from "../../ingest/sources/opra/live/protocol";
import { receiveTime } from "../../ingest/sources/opra/feed-files";

export interface LocalGatewayOptions {
  /** 0 (default): any free port. */
  port?: number;
  /** The one key it accepts (32 characters). */
  apiKey: string;
  /**
   * The feed's records from receive time `from` on (null: its beginning), in receive-time order;
   * `schemas` are the session's (records of others are passed over, so a source may leave them out).
   */
  records: (from: bigint | null, schemas: ReadonlySet<LiveSchema>) => AsyncIterable<DbnRecord>;
  /** The feed's clock (ns since the epoch): a record is sent once its receive time has come. */
  now: () => bigint;
  /** The raw (OSI) symbol of an instrument id, for the symbol mappings a session sends before an instrument's first record. */
  rawSymbol: (instrumentId: number) => string | undefined;
  /** Every write cut into pieces of 1 to this many bytes (tests: a TCP stream keeps no message boundaries). */
  fragmentBytes?: number;
  /** Tests: a session (numbered from 0) is cut — a network drop — right after a record for which this says true. */
  cutAfter?: (record: Encoded, session: number) => boolean;
}

/** How often a waiting session looks at the clock again. */
const TICK_MS = 20;
/** Bytes of due records written at once. */
const SEND_CHUNK_BYTES = 1 << 16;
/** Bytes of records encoded before they are due: more than a full-size minute of samples (110 MB). */
const READ_AHEAD_BYTES = 192 << 20;
/** How far ahead of the feed's clock records are encoded: a minute, so each minute's samples are ready at its end. */
const READ_AHEAD_NS = 60_000_000_000n;
/** A replay filtered on event time asks its source from this much before its start (an event time may follow its receive time). */
const SOURCE_SKEW_NS = 1_000_000_000n;
/** A control line longer than this is refused (the vendor's clients send a few hundred bytes; databento-cpp's mock reads 32 KB). */
const MAX_LINE_BYTES = 32 * 1024;

/** A session's subscription to one schema: replayed from `start` (ns), or live from the session's start when null. */
interface Subscription {
  schema: LiveSchema;
  start: bigint | null;
}

/** What the gateway answers a session with, instead of its data (tests: the vendor's error records). */
export interface GatewayRefusal {
  code: number;
  err: string;
}

/**
 * A local stand-in for Databento's live gateway, speaking its raw protocol as the vendor's own
 * clients and documentation describe it (databento-rs `src/live/protocol.rs`, databento-python
 * `databento/live/gateway.py`, databento-cpp `tests/src/mock_lsg_server.cpp`; the live API's
 * "Intraday replay" and "System messages" pages): CRAM authentication; subscription requests
 * whose symbol lists may be split over several lines until one says `is_last=1` (a session
 * started with a request still open, or chunks that disagree, is refused with an
 * `INVALID_SUBSCRIPTION` error record); `start_session` (databento-python sends `start_session=0`);
 * then a DBN v3 stream: the metadata, one acknowledgement per subscription, a symbol mapping
 * before each instrument's first record, an intraday replay from each subscription's `start`
 * selected by event time — by receive time for CBBO and BBO schemas — ending with one "replay
 * completed" notice per replayed schema, and heartbeats when idle. It replays recorded or
 * generated records, as the Stripe and vendor stubs replay theirs. `drop`, `mute` and `refuse`
 * play the faults a client must survive: a dropped connection, a gateway gone silent, an error
 * record that ends a session.
 */
export class LocalGateway {
  private readonly sockets = new Set<Socket>();
  private muted = false;
  private refusal: GatewayRefusal | null = null;
  /** Data records written to clients so far, for tests (heartbeats, notices and mappings not counted). */
  sent = 0;
  /** Sessions started, for tests: each with what it subscribed to. */
  readonly sessions: { schemas: LiveSchema[]; start: bigint | null; starts: Subscription[] }[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: LocalGatewayOptions,
  ) {}

  static async start(options: LocalGatewayOptions): Promise<LocalGateway> {
    if (options.apiKey.length !== API_KEY_LENGTH) throw new Error(`an API key is ${API_KEY_LENGTH} characters`);
    const server = createServer();
    const gateway = new LocalGateway(server, options);
    server.on("connection", (socket) => gateway.serve(socket));
    await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
    return gateway;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Closes every connection (a network drop): clients reconnect and replay. */
  drop(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  /** Stops sending anything, heartbeats included, on open connections (a hung gateway). */
  mute(muted = true): void {
    this.muted = muted;
  }

  /** Sessions started from now on get this error record after their metadata and are closed (null: served again). */
  refuse(refusal: GatewayRefusal | null): void {
    this.refusal = refusal;
  }

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const send = this.writer(socket);
    const challenge = randomBytes(16).toString("hex");
    // Greeting and challenge in two writes, as databento-cpp's mock sends them: a client must read lines, not chunks.
    void send(Buffer.from("lsg_version=0.0.0-local\n"))
      .then(() => send(Buffer.from(`cram=${challenge}\n`)))
      .catch(() => socket.destroy());
    const subscriptions: Subscription[] = [];
    /** A subscription whose symbol list is still arriving (`is_last=0`), and why the session is refused, if it is. */
    let open: (Subscription & { stypeIn: string }) | null = null;
    let invalid: string | null = null;
    let heartbeatS = DEFAULT_HEARTBEAT_INTERVAL_S;
    let authenticated = false;
    let pending = "";
    const onLine = (line: string): boolean => {
      if (!authenticated) {
        const auth = parseFields(line);
        if (auth.auth !== cramReply(challenge, this.options.apiKey) || auth.dataset !== OPRA_DATASET || auth.encoding !== "dbn") {
          void send(Buffer.from(formatFields({ success: 0, error: "Authentication failed." }))).finally(() => socket.end());
          return false;
        }
        authenticated = true;
        heartbeatS = Number(auth.heartbeat_interval_s ?? DEFAULT_HEARTBEAT_INTERVAL_S) || DEFAULT_HEARTBEAT_INTERVAL_S;
        void send(Buffer.from(formatFields({ success: 1, session_id: this.sessions.length + 1 }))).catch(() => socket.destroy());
        return true;
      }
      if (line === "start_session" || line.startsWith("start_session=")) {
        if (open) invalid ??= `the subscription to ${open.schema} was never completed: no request with is_last=1`;
        void this.stream(socket, send, subscriptions, heartbeatS, invalid).catch(() => socket.destroy());
        return false;
      }
      const sub = parseFields(line);
      const schema = sub.schema as LiveSchema;
      const start = sub.start === undefined ? null : /^\d+$/.test(sub.start) ? BigInt(sub.start) : undefined;
      if (!(LIVE_SCHEMAS as readonly string[]).includes(schema) || start === undefined || !sub.symbols) {
        invalid ??= `invalid subscription request: '${line.slice(0, 120)}'`;
        return true;
      }
      const stypeIn = sub.stype_in ?? "raw_symbol";
      if (open && (open.schema !== schema || open.start !== start || open.stypeIn !== stypeIn)) {
        invalid ??= `a request for ${schema} arrived while the symbol list of ${open.schema} was not complete (is_last=0)`;
      }
      open = { schema, start, stypeIn };
      if (sub.is_last !== "0") {
        subscriptions.push({ schema, start });
        open = null;
      }
      return true;
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (!onLine(line)) {
          socket.off("data", onData);
          return;
        }
      }
      if (pending.length > MAX_LINE_BYTES) socket.destroy();
    };
    socket.on("data", onData);
  }

  /** Writes to a socket, waiting while its buffer is full; cut into pieces when `fragmentBytes` says so. */
  private writer(socket: Socket): (bytes: Uint8Array) => Promise<void> {
    const write = async (bytes: Uint8Array) => {
      if (socket.destroyed) throw new Error("closed");
      if (!socket.write(bytes)) await new Promise((resolve) => socket.once("drain", resolve));
    };
    const most = this.options.fragmentBytes;
    if (!most) return write;
    return async (bytes) => {
      for (let at = 0; at < bytes.length;) {
        const size = 1 + Math.floor(Math.random() * most);
        await write(bytes.subarray(at, at + size));
        at += size;
        // A turn of the event loop between pieces: each reaches the client as a read of its own.
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
  }

  private async stream(
    socket: Socket,
    send: (bytes: Uint8Array) => Promise<void>,
    subscriptions: Subscription[],
    heartbeatS: number,
    invalid: string | null,
  ): Promise<void> {
    const sessionStart = this.options.now();
    /** Per schema, where its records start: the earliest start asked (null: live only, from the session's start). */
    const starts = new Map<LiveSchema, bigint | null>();
    for (const { schema, start } of subscriptions) {
      const seen = starts.get(schema) ?? null;
      starts.set(schema, seen === null || (start !== null && start < seen) ? start : seen);
    }
    const schemas = new Set(starts.keys());
    const replayed = [...starts].filter(([, start]) => start !== null).map(([schema]) => schema);
    const earliest = replayed.map((schema) => starts.get(schema)!).reduce<bigint | null>((a, b) => (a === null || b < a ? b : a), null);
    const session = this.sessions.push({ schemas: [...schemas], start: earliest, starts: [...subscriptions] }) - 1;
    await send(
      encodeMetadata({
        dataset: OPRA_DATASET,
        schema: schemas.size === 1 ? [...schemas][0]! : null,
        start: earliest ?? sessionStart,
        end: null,
        stypeIn: "parent",
        stypeOut: "instrument_id",
        tsOut: false,
      }),
    );
    const refusal = invalid !== null ? { code: ERROR_CODE.INVALID_SUBSCRIPTION, err: invalid } : this.refusal;
    if (refusal) {
      await send(this.error(refusal));
      socket.end();
      return;
    }
    for (const [i, { schema }] of subscriptions.entries()) {
      await send(this.system(`Subscription request ${i} for ${schema} data succeeded`, SYSTEM_CODE.SUBSCRIPTION_ACK));
    }
    let lastSent = Date.now();
    /** A tick with nothing due: a heartbeat once the interval has passed in silence (never while muted). */
    const idle = async () => {
      if (!this.muted && Date.now() - lastSent >= heartbeatS * 1000) {
        await send(this.system("Heartbeat", SYSTEM_CODE.HEARTBEAT));
        lastSent = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    };
    // Records due together (a minute's 1.4 M samples) go out in chunks, as a gateway sends them, not a write each.
    const due: Uint8Array[] = [];
    let dueBytes = 0;
    const enqueue = (bytes: Uint8Array) => {
      due.push(bytes);
      dueBytes += bytes.length;
    };
    const flush = async () => {
      if (due.length === 0) return;
      const chunk = Buffer.concat(due, dueBytes);
      [due.length, dueBytes] = [0, 0];
      await send(chunk);
    };
    const byReceiveTime = new Set([...schemas].filter(replaysByReceiveTime));
    const selected = (record: DbnRecord) => {
      const schema = schemaOf(record);
      if (schema === null || !schemas.has(schema)) return false;
      const start = starts.get(schema)!;
      if (start === null) return receiveTime(record) >= sessionStart;
      return (byReceiveTime.has(schema) ? receiveTime(record) : record.tsEvent) >= start;
    };
    const ahead = new ReadAhead(
      this.options.records(earliest === null ? sessionStart : earliest - SOURCE_SKEW_NS, schemas),
      selected,
      READ_AHEAD_BYTES,
      () => this.options.now() + READ_AHEAD_NS,
    );
    socket.once("close", () => ahead.stop());
    const mapped = new Set<number>();
    const replaying = new Set(replayed);
    for (;;) {
      const next = ahead.peek();
      const nothingDue = next === undefined ? ahead.ended || ahead.waitingForClock : next.at > this.options.now();
      if (replaying.size > 0 && !this.muted) {
        // One notice per replayed schema, once it has caught up: nothing of it is due any more (its
        // last due record sent, or the whole session caught up), after its last record.
        for (const schema of replaying) {
          if (!nothingDue && !(ahead.filledToHorizon && ahead.queued(SCHEMA_RTYPE[schema]) === 0)) continue;
          enqueue(this.system(`Finished ${schema} replay`, SYSTEM_CODE.REPLAY_COMPLETED));
          replaying.delete(schema);
        }
      }
      if (next === undefined && ahead.ended) break;
      if (next === undefined || this.muted || nothingDue) {
        await flush();
        if (socket.destroyed) return;
        await (next === undefined ? Promise.race([ahead.ready(), idle()]) : idle());
        continue;
      }
      ahead.take();
      if (!mapped.has(next.instrumentId)) {
        mapped.add(next.instrumentId);
        const mapping = this.mapping(next.instrumentId, next.at);
        if (mapping) enqueue(mapping);
      }
      enqueue(next.bytes);
      this.sent++;
      if (this.options.cutAfter?.(next, session)) {
        await flush();
        socket.destroy();
        return;
      }
      if (dueBytes >= SEND_CHUNK_BYTES) await flush();
      lastSent = Date.now();
    }
    await flush();
    // The feed has ended: the session stays open on heartbeats, as a gateway after the close.
    while (!socket.destroyed) await idle();
  }

  /** The symbol mapping a live session sends before an instrument's first record: its raw symbol (none when unknown). */
  private mapping(instrumentId: number, at: bigint): Uint8Array | null {
    const raw = this.options.rawSymbol(instrumentId);
    if (raw === undefined) return null;
    return encodeRecord({
      kind: "symbol-mapping",
      rtype: RTYPE.SYMBOL_MAPPING,
      publisherId: 0,
      instrumentId,
      tsEvent: at,
      stypeIn: STYPES.indexOf("parent"),
      stypeInSymbol: "ALL_SYMBOLS",
      stypeOut: STYPES.indexOf("raw_symbol"),
      stypeOutSymbol: raw,
      startTs: null,
      endTs: null,
    });
  }

  private system(msg: string, code: number): Uint8Array {
    return encodeRecord({ kind: "system", rtype: RTYPE.SYSTEM, publisherId: 0, instrumentId: 0, tsEvent: this.options.now(), msg, code });
  }

  private error({ code, err }: GatewayRefusal): Uint8Array {
    return encodeRecord({
      kind: "error",
      rtype: RTYPE.ERROR,
      publisherId: 0,
      instrumentId: 0,
      tsEvent: this.options.now(),
      err,
      code,
      isLast: 1,
    });
  }
}
