import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { encodeMetadata, encodeRecord, RTYPE, SYSTEM_CODE, type DbnRecord } from "../../ingest/dbn";
import { ReadAhead } from "./read-ahead";
import {
  API_KEY_LENGTH,
  cramReply,
  DEFAULT_HEARTBEAT_INTERVAL_S,
  formatFields,
  OPRA_DATASET,
  parseFields,
  schemaOf,
  type LiveSchema,
} from "../../ingest/live/protocol";
import { receiveTime } from "../../ingest/replay/feed-files";

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
}

/** How often a waiting session looks at the clock again. */
const TICK_MS = 20;
/** Bytes of due records written at once. */
const SEND_CHUNK_BYTES = 1 << 16;
/** Bytes of records encoded before they are due: more than a full-size minute of samples (110 MB). */
const READ_AHEAD_BYTES = 192 << 20;
/** How far ahead of the feed's clock records are encoded: a minute, so each minute's samples are ready at its end. */
const READ_AHEAD_NS = 60_000_000_000n;

/**
 * A local stand-in for Databento's live gateway, speaking its raw protocol (CRAM authentication,
 * subscriptions with an intraday replay `start`, `start_session`, a DBN v3 stream with heartbeats
 * when idle) over recorded or generated records — as the Stripe and vendor stubs replay theirs.
 * `drop` and `mute` play the faults a client must survive: a dropped connection, a gateway gone
 * silent.
 */
export class LocalGateway {
  private readonly sockets = new Set<Socket>();
  private muted = false;
  /** Data records written to clients so far, for tests (heartbeats and notices not counted). */
  sent = 0;
  /** Sessions started, for tests: each with what it subscribed to. */
  readonly sessions: { schemas: LiveSchema[]; start: bigint | null }[] = [];

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

  async close(): Promise<void> {
    this.drop();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const challenge = randomBytes(16).toString("hex");
    socket.write(`lsg_version=0.0.0-local\ncram=${challenge}\n`);
    const subscriptions: { schema: LiveSchema; start: bigint | null }[] = [];
    let heartbeatS = DEFAULT_HEARTBEAT_INTERVAL_S;
    let authenticated = false;
    let pending = "";
    const onData = (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (!authenticated) {
          const auth = parseFields(line);
          if (auth.auth !== cramReply(challenge, this.options.apiKey) || auth.dataset !== OPRA_DATASET) {
            socket.end(formatFields({ success: 0, error: "Authentication failed." }));
            return;
          }
          authenticated = true;
          heartbeatS = Number(auth.heartbeat_interval_s ?? DEFAULT_HEARTBEAT_INTERVAL_S) || DEFAULT_HEARTBEAT_INTERVAL_S;
          socket.write(formatFields({ success: 1, session_id: this.sessions.length + 1 }));
        } else if (line === "start_session") {
          socket.off("data", onData);
          void this.stream(socket, subscriptions, heartbeatS).catch(() => socket.destroy());
          return;
        } else {
          const sub = parseFields(line);
          subscriptions.push({ schema: sub.schema as LiveSchema, start: sub.start === undefined ? null : BigInt(sub.start) });
        }
      }
    };
    socket.on("data", onData);
  }

  private async stream(socket: Socket, subscriptions: { schema: LiveSchema; start: bigint | null }[], heartbeatS: number): Promise<void> {
    const schemas = new Set(subscriptions.map((s) => s.schema));
    const starts = subscriptions.map((s) => s.start).filter((s): s is bigint => s !== null);
    const from = starts.length > 0 ? starts.reduce((a, b) => (a < b ? a : b)) : this.options.now();
    this.sessions.push({ schemas: [...schemas], start: starts.length > 0 ? from : null });
    const send = async (bytes: Uint8Array) => {
      if (socket.destroyed) throw new Error("closed");
      if (!socket.write(bytes)) await new Promise((resolve) => socket.once("drain", resolve));
    };
    await send(
      encodeMetadata({
        dataset: OPRA_DATASET,
        schema: schemas.size === 1 ? [...schemas][0]! : null,
        start: from,
        end: null,
        stypeIn: "parent",
        stypeOut: "instrument_id",
        tsOut: false,
      }),
    );
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
    const flush = async () => {
      if (due.length === 0) return;
      const chunk = Buffer.concat(due, dueBytes);
      [due.length, dueBytes] = [0, 0];
      await send(chunk);
    };
    const ahead = new ReadAhead(
      this.options.records(from, schemas),
      (record) => {
        const schema = schemaOf(record);
        return schema !== null && schemas.has(schema) && receiveTime(record) >= from;
      },
      READ_AHEAD_BYTES,
      () => this.options.now() + READ_AHEAD_NS,
    );
    socket.once("close", () => ahead.stop());
    // An intraday replay ends, as the vendor's does, with a notice once everything already due is sent.
    let replaying = starts.length > 0;
    for (;;) {
      const next = ahead.peek();
      const nothingDue = next === undefined ? ahead.ended || ahead.waitingForClock : next.at > this.options.now();
      if (replaying && !this.muted && nothingDue) {
        await flush();
        await send(this.system("Finished replay", SYSTEM_CODE.REPLAY_COMPLETED));
        replaying = false;
      }
      if (next === undefined && ahead.ended) break;
      if (next === undefined || this.muted || nothingDue) {
        await flush();
        if (socket.destroyed) return;
        await (next === undefined ? Promise.race([ahead.ready(), idle()]) : idle());
        continue;
      }
      ahead.take();
      due.push(next.bytes);
      dueBytes += next.bytes.length;
      this.sent++;
      if (dueBytes >= SEND_CHUNK_BYTES) await flush();
      lastSent = Date.now();
    }
    await flush();
    // The feed has ended: the session stays open on heartbeats, as a gateway after the close.
    while (!socket.destroyed) await idle();
  }

  private system(msg: string, code: number): Uint8Array {
    return encodeRecord({ kind: "system", rtype: RTYPE.SYSTEM, publisherId: 0, instrumentId: 0, tsEvent: this.options.now(), msg, code });
  }
}
