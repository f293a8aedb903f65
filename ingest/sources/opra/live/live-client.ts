import { connect } from "node:net";
import { DbnDecoder, SYSTEM_CODE, type DbnItem, type DbnRecord, type ErrorRecord } from "../../../dbn";
import type { IngestLog } from "../../../log";
import { receiveTime } from "../feed-files";
import {
  cramReply,
  DEFAULT_HEARTBEAT_INTERVAL_S,
  FATAL_ERROR_CODES,
  formatFields,
  heartbeatTimeoutMs,
  LIVE_SCHEMAS,
  OPRA_DATASET,
  parseFields,
  replayStart,
  schemaOf,
  subscriptionRequest,
  type LiveSchema,
} from "./protocol";

export interface LiveOptions {
  host: string;
  port: number;
  /** From the environment only (`DATABENTO_API_KEY`): never an argument on a command line. */
  apiKey: string;
  dataset?: string;
  schemas?: readonly LiveSchema[];
  heartbeatIntervalS?: number;
  /** Replay every record received from this time (ns) on, on the first connection; null: from now on. */
  start: bigint | null;
  log: IngestLog;
  signal?: AbortSignal;
  /** Waits between reconnection attempts, doubling from `min` to `max` (ms). */
  backoff?: { min: number; max: number };
  /** Called once the gateway has said of every replayed schema that its intraday replay is done, after every replayed record was taken. */
  onReplayed?: () => void;
}

const HIGH_WATER = 50_000;
const LOW_WATER = 10_000;

/**
 * The gateway refused the session for good — the key at authentication, or an error record whose
 * code is fatal (`FATAL_ERROR_CODES`): retrying cannot help.
 */
export class LiveRefusedError extends Error {}

/** What one connection yields: the stream's items, then it ends (closed) or throws (silence, refusal, socket error). */
function session(o: LiveOptions, receivedFrom: (schema: LiveSchema) => bigint | null): AsyncIterable<DbnItem> {
  // Decoded items not yet taken, from `head` on; past HIGH_WATER the socket is paused until the
  // reader is back under LOW_WATER (a morning's 1.4 M definitions arrive faster than they are written).
  let queue: DbnItem[] = [];
  let head = 0;
  let paused = false;
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  const socket = connect({ host: o.host, port: o.port });
  const silence = heartbeatTimeoutMs(o.heartbeatIntervalS ?? DEFAULT_HEARTBEAT_INTERVAL_S);
  const arm = () => setTimeout(() => socket.destroy(new Error(`no data or heartbeat for ${silence / 1000} s`)), silence);
  let timer = arm();
  const fail = (error: Error) => {
    failure ??= error;
    socket.destroy();
  };
  const onAbort = () => socket.destroy();
  o.signal?.addEventListener("abort", onAbort, { once: true });

  // The handshake is text lines; what follows `start_session` is DBN, possibly in the same chunk.
  let handshake: Buffer | null = Buffer.alloc(0);
  const lines: string[] = [];
  const decoder = new DbnDecoder();
  const onLine = (line: string) => {
    lines.push(line);
    if (lines.length === 2) {
      const challenge = parseFields(line).cram;
      if (!challenge) return fail(new Error(`no CRAM challenge from the gateway: '${line.slice(0, 80)}'`));
      socket.write(
        formatFields({
          auth: cramReply(challenge, o.apiKey),
          dataset: o.dataset ?? OPRA_DATASET,
          encoding: "dbn",
          compression: "none",
          ts_out: 0,
          heartbeat_interval_s: o.heartbeatIntervalS ?? DEFAULT_HEARTBEAT_INTERVAL_S,
          client: "options-data-ingestor",
        }),
      );
    } else if (lines.length === 3) {
      const reply = parseFields(line);
      if (reply.success !== "1")
        return fail(new LiveRefusedError(`the gateway refused authentication: ${reply.error ?? line.slice(0, 120)}`));
      const schemas = o.schemas ?? LIVE_SCHEMAS;
      // Each schema from where its replay brings back every record received at or after the time it asks.
      const starts = schemas.map((schema) => {
        const received = receivedFrom(schema);
        return received === null ? null : replayStart(schema, received);
      });
      schemas.forEach((schema, i) => socket.write(subscriptionRequest(schema, starts[i] ?? null)));
      socket.write("start_session\n");
      o.log({
        event: "feed_connected",
        session: reply.session_id ?? null,
        schemas,
        starts: starts.map((start) => start?.toString() ?? null),
      });
      handshake = null;
    }
  };
  socket.on("data", (chunk: Buffer) => {
    clearTimeout(timer);
    timer = arm();
    if (queue.length - head > HIGH_WATER) {
      // No silence is counted while paused: the gateway is waiting for us.
      clearTimeout(timer);
      paused = true;
      socket.pause();
    }
    try {
      let rest: Buffer = chunk;
      while (handshake !== null && rest.length > 0) {
        const newline = rest.indexOf(10);
        if (newline < 0) {
          const partial = Buffer.concat([handshake, rest]);
          if (partial.length > 4096) throw new Error("the gateway's handshake line is too long");
          handshake = partial;
          return;
        }
        onLine(Buffer.concat([handshake, rest.subarray(0, newline)]).toString("utf8"));
        if (handshake !== null) handshake = Buffer.alloc(0);
        rest = rest.subarray(newline + 1);
      }
      if (rest.length > 0) queue.push(...decoder.push(rest));
    } catch (error) {
      fail(error as Error);
    }
    notify();
  });
  socket.on("error", (error) => (failure ??= error));
  socket.on("close", () => {
    clearTimeout(timer);
    o.signal?.removeEventListener("abort", onAbort);
    ended = true;
    notify();
  });
  return {
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          while (head < queue.length) {
            const item = queue[head++]!;
            if (head === queue.length) [queue, head] = [[], 0];
            else if (head >= LOW_WATER) [queue, head] = [queue.slice(head), 0];
            if (paused && queue.length - head <= LOW_WATER) {
              paused = false;
              timer = arm();
              socket.resume();
            }
            yield item;
          }
          if (ended) {
            if (failure) throw failure;
            return;
          }
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        socket.destroy();
      }
    },
  };
}

/**
 * The feed's records from the live gateway, across disconnections, with the symbol mappings that
 * name their instruments and the heartbeats that move the feed's clock. After a drop (socket
 * closed, silent past the heartbeat timeout, a decoding error, an error record that is not fatal)
 * it reconnects with backoff and asks for an intraday replay, each schema of everything received
 * from the newest receive time it delivered of that schema (of any, for a schema it delivered
 * nothing of) — from early enough that the gateway's selection, by event time for most schemas,
 * loses none of it (`replayStart`) — and passes over what it had already delivered: every record
 * of the schema received before that time, and as many of that time's own as it had delivered
 * (a schema's records come in receive-time order). Each record is yielded once and in order. A
 * refusal ends it (`LiveRefusedError`); so does `signal`. The backoff starts again only once a
 * connection has brought data or a heartbeat: a gateway that accepts and then errors is not
 * retried every 0.5 s.
 */
export async function* liveRecords(o: LiveOptions): AsyncGenerator<DbnRecord, void, undefined> {
  const backoff = o.backoff ?? { min: 500, max: 10_000 };
  const replayedSchemas = (o.schemas ?? LIVE_SCHEMAS).length;
  /** Per schema, the newest receive time delivered and how many of its records were. */
  const delivered = new Map<LiveSchema, { at: bigint; count: number }>();
  let newest: bigint | null = null;
  let wait = backoff.min;
  let droppedAt: number | null = null;
  while (!o.signal?.aborted) {
    const resumeFrom = newest;
    const skip = new Map([...delivered].map(([schema, { count }]) => [schema, count]));
    let overlap = 0;
    let completions = 0;
    let healthy = false;
    try {
      for await (const item of session(o, (schema) => delivered.get(schema)?.at ?? resumeFrom ?? o.start)) {
        if (item.kind === "metadata") continue;
        if (item.kind === "error") throw gatewayError(item, o.log);
        const schema = schemaOf(item);
        if (!healthy && (schema !== null || (item.kind === "system" && item.code === SYSTEM_CODE.HEARTBEAT))) {
          healthy = true;
          wait = backoff.min;
          if (droppedAt !== null) o.log({ event: "feed_resumed", from: resumeFrom?.toString() ?? null, downMs: Date.now() - droppedAt });
          droppedAt = null;
        }
        if (schema === null) {
          // A heartbeat comes when the gateway has nothing older to send: it moves the feed's clock.
          if (item.kind === "system" && item.code === SYSTEM_CODE.HEARTBEAT) yield item;
          else if (item.kind === "symbol-mapping") yield item;
          else if (item.kind === "system") {
            o.log({ event: "feed_notice", code: item.code, message: item.msg });
            // One notice per replayed schema: the session has caught up once every one has said so.
            if (item.code === SYSTEM_CODE.REPLAY_COMPLETED && (resumeFrom ?? o.start) !== null && ++completions === replayedSchemas) {
              if (overlap > 0) o.log({ event: "feed_replay_overlap", records: overlap });
              o.onReplayed?.();
            }
          }
          continue;
        }
        const at = receiveTime(item);
        const seen = delivered.get(schema);
        if (seen && (at < seen.at || (at === seen.at && skip.get(schema)! > 0))) {
          if (at === seen.at) skip.set(schema, skip.get(schema)! - 1);
          overlap++;
          continue;
        }
        if (seen?.at === at) seen.count++;
        else {
          delivered.set(schema, { at, count: 1 });
          skip.set(schema, 0);
        }
        if (newest === null || at > newest) newest = at;
        yield item;
      }
      if (!o.signal?.aborted) o.log({ event: "feed_closed", through: newest?.toString() ?? null });
    } catch (error) {
      if (error instanceof LiveRefusedError) throw error;
      if (!o.signal?.aborted) o.log({ event: "feed_dropped", through: newest?.toString() ?? null, error: (error as Error).message });
    }
    if (o.signal?.aborted) return;
    droppedAt ??= Date.now();
    await abortableSleep(wait, o.signal);
    wait = Math.min(wait * 2, backoff.max);
  }
}

/** What an error record means for the session: the end of it (fatal codes) or a drop to recover from by a replay. */
function gatewayError(record: ErrorRecord, log: IngestLog): Error {
  log({ event: "feed_gateway_error", code: record.code, message: record.err });
  if (FATAL_ERROR_CODES.has(record.code))
    return new LiveRefusedError(`the gateway ended the session: ${record.err} (error code ${record.code})`);
  return new Error(`gateway error ${record.code}: ${record.err}`);
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
