import type { components } from "./generated/api.js";

type ServerMessage = components["schemas"]["StreamServerMessage"];
type FlowMessage = Extract<ServerMessage, { type: "flow" }>;
type SubscribeMessage = Extract<components["schemas"]["StreamClientMessage"], { type: "subscribe" }>;

/** A print as the `flow` channel (and `/v1/flow`) serves it. */
export type FlowPrint = FlowMessage["prints"][number];
/** `/v1/flow`'s filters, as the subscribe message carries them. */
export type FlowFilters = NonNullable<SubscribeMessage["filters"]>;

/** One message's prints and the cursor that resumes after them. */
export interface FlowBatch {
  prints: FlowPrint[];
  cursor: string;
}

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
  /** Resume after this cursor (a `FlowBatch.cursor` of an earlier stream). */
  since?: string;
  /** Longest wait between reconnection attempts (ms, default 10,000); the first is 250 ms, then doubling. */
  maxRetryMs?: number;
  /** A WebSocket constructor taking `{ headers }` (Node's and undici's do; browsers cannot send the key, use a backend). */
  WebSocket?: new (url: string, init: { headers: Record<string, string> }) => WebSocket;
}

export interface FlowSubscription extends AsyncIterable<FlowBatch> {
  /** Where a new subscription would resume: the last batch taken, or the last heartbeat's. */
  readonly cursor: string | undefined;
  /** Reconnections so far. */
  readonly reconnects: number;
  close(): void;
}

const FINAL_CLOSES = new Set([4401, 4403]);

/**
 * The `flow` channel of `/v1/stream` as an async iterator of batches, over one WebSocket that
 * reconnects by itself and resumes from the last cursor taken: a dropped connection, a deploy or a
 * `lagged` close costs a reconnect, never a print, and never delivers one twice. Each batch is
 * acknowledged when the loop takes it, so a slow loop slows the server down rather than piling up
 * messages here (past the server's window it ends the socket with `lagged`, and this resumes).
 */
export function streamFlow(baseUrl: string, apiKey: string, filters: FlowFilters, options: StreamOptions = {}): FlowSubscription {
  const Socket = options.WebSocket ?? (globalThis.WebSocket as unknown as NonNullable<StreamOptions["WebSocket"]>);
  const url = `${baseUrl.replace(/^http/, "ws")}/v1/stream`;
  const queue: FlowMessage[] = [];
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
      const subscribe: SubscribeMessage = { type: "subscribe", id: "flow", channel: "flow", filters, ...(cursor ? { since: cursor } : {}) };
      ws.send(JSON.stringify(subscribe));
    });
    ws.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as ServerMessage;
      if (message.type === "subscribed") {
        subscribed = true;
        cursor ??= message.cursor;
      } else if (message.type === "flow") queue.push(message);
      else if (message.type === "heartbeat" && queue.length === 0 && message.cursors.flow) cursor = message.cursors.flow;
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

  async function* batches(): AsyncGenerator<FlowBatch> {
    try {
      for (;;) {
        const message = queue.shift();
        if (message) {
          // Messages queued before a reconnect may overlap what the new subscription resent: the cursor decides.
          cursor = message.cursor;
          socket?.send(JSON.stringify({ type: "ack", seq: message.seq }));
          yield { prints: message.prints, cursor: message.cursor };
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

  const subscription: FlowSubscription = {
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
    [Symbol.asyncIterator]: batches,
  };
  return subscription;
}
