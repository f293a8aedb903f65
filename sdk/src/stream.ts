import type { components } from "./generated/api.js";

type ServerMessage = components["schemas"]["StreamServerMessage"];
type SubscribeMessage = Extract<components["schemas"]["StreamClientMessage"], { type: "subscribe" }>;

/** The channels of `/v1/stream`. */
export type StreamChannel = SubscribeMessage["channel"];
/** A channel's data message: `flow` prints, `netflow` points, `quotes`, a `gex` summary, a `status` report. */
export type ChannelMessage<C extends StreamChannel> = Extract<ServerMessage, { type: C }>;
/** The REST twin's query parameters, as the subscribe message carries them. */
export type StreamFilters = NonNullable<SubscribeMessage["filters"]>;

/** One `flow` message: its prints and the cursor that resumes after them. */
export type FlowBatch = ChannelMessage<"flow">;
/** A print as the `flow` channel (and `/v1/flow`) serves it. */
export type FlowPrint = FlowBatch["prints"][number];
/** `/v1/flow`'s filters. */
export type FlowFilters = StreamFilters;

/** The stream ended for good: a refused key or account (close 4401/4403), or a refused subscription. */
export class OdsStreamError extends Error {
  constructor(
    message: string,
    /** The REST error code, or `closed` with the WebSocket close code. */
    readonly code: string,
    readonly closeCode?: number,
  ) {
    super(message);
    this.name = "OdsStreamError";
  }
}

export interface StreamOptions {
  /** Resume after this cursor (`flow`, `netflow`: the `cursor` of a message of an earlier stream). */
  since?: string;
  /** Longest wait between reconnection attempts (ms, default 10,000); the first is 250 ms, then doubling. */
  maxRetryMs?: number;
  /** A WebSocket constructor taking `{ headers }` (Node's and undici's do; browsers cannot send the key, use a backend). */
  WebSocket?: new (url: string, init: { headers: Record<string, string> }) => WebSocket;
}

export interface ChannelSubscription<C extends StreamChannel> extends AsyncIterable<ChannelMessage<C>> {
  /** Where a new subscription would resume (`flow`, `netflow`): the last message taken, or the last heartbeat's. */
  readonly cursor: string | undefined;
  /** Reconnections so far. */
  readonly reconnects: number;
  close(): void;
}

const FINAL_CLOSES = new Set([4401, 4403]);

export type FlowSubscription = ChannelSubscription<"flow">;

/**
 * One channel of `/v1/stream` as an async iterator of its messages, over one WebSocket that
 * reconnects by itself. `flow` and `netflow` resume from the last cursor taken: a dropped
 * connection, a deploy or a `lagged` close costs a reconnect, never a print, and never delivers one
 * twice. `quotes`, `gex` and `status` are state: after a reconnect they start again with the current
 * values. Each message is acknowledged when the loop takes it, so a slow loop slows the server down
 * rather than piling up messages here (past the server's window it ends the socket with `lagged`,
 * and this resumes).
 */
export function streamChannel<C extends StreamChannel>(
  baseUrl: string,
  apiKey: string,
  channel: C,
  filters: StreamFilters,
  options: StreamOptions = {},
): ChannelSubscription<C> {
  const Socket = options.WebSocket ?? (globalThis.WebSocket as unknown as NonNullable<StreamOptions["WebSocket"]>);
  const url = `${baseUrl.replace(/^http/, "ws")}/v1/stream`;
  const queue: ChannelMessage<C>[] = [];
  let cursor = options.since;
  let failure: OdsStreamError | null = null;
  let closed = false;
  let reconnects = 0;
  let socket: WebSocket | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };

  const connect = (attempt: number) => {
    if (closed) return;
    const ws = new Socket(url, { headers: { Authorization: `Bearer ${apiKey}` } });
    socket = ws;
    let subscribed = false;
    ws.addEventListener("open", () => {
      const subscribe: SubscribeMessage = { type: "subscribe", id: channel, channel, filters, ...(cursor ? { since: cursor } : {}) };
      ws.send(JSON.stringify(subscribe));
    });
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as ServerMessage;
      if (message.type === "subscribed") {
        subscribed = true;
        cursor ??= message.cursor;
      } else if (message.type === channel) queue.push(message as ChannelMessage<C>);
      else if (message.type === "heartbeat" && queue.length === 0 && message.cursors[channel]) cursor = message.cursors[channel];
      else if (message.type === "error") failure = new OdsStreamError(message.message, message.error);
      else return;
      notify();
    });
    ws.addEventListener("close", (event) => {
      if (socket !== ws) return;
      socket = null;
      // Not yet taken: the next subscription resends them from the last cursor taken.
      queue.length = 0;
      if (closed || failure) return notify();
      if (FINAL_CLOSES.has(event.code)) {
        failure = new OdsStreamError(`The stream was closed: ${event.reason || event.code}.`, event.reason || "closed", event.code);
        return notify();
      }
      reconnects++;
      const next = subscribed ? 0 : attempt + 1;
      const delay = Math.min(250 * 2 ** next, options.maxRetryMs ?? 10_000);
      setTimeout(() => connect(next), delay);
    });
  };
  connect(0);

  async function* messages(): AsyncGenerator<ChannelMessage<C>> {
    try {
      for (;;) {
        const message = queue.shift();
        if (message) {
          if ("cursor" in message) cursor = message.cursor;
          if ("seq" in message) socket?.send(JSON.stringify({ type: "ack", seq: message.seq }));
          yield message;
          continue;
        }
        if (failure) throw failure;
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      subscription.close();
    }
  }

  const subscription: ChannelSubscription<C> = {
    get cursor() {
      return cursor;
    },
    get reconnects() {
      return reconnects;
    },
    close() {
      closed = true;
      socket?.close(1000, "done");
      notify();
    },
    [Symbol.asyncIterator]: messages,
  };
  return subscription;
}
