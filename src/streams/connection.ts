import type { ServerMessage } from "./messages";

/** One open stream as the hub writes to it, whatever its transport. */
export interface Connection {
  readonly id: string;
  /** Sends one message; `eventId` is SSE's `id:` (a cursor), ignored by WebSockets. */
  send(message: ServerMessage, eventId?: string): void;
  /** Bytes of data messages sent that the client has not shown it took: the slow-consumer measure. */
  buffered(): number;
  /** The sequence number the next data message carries. */
  nextSeq(): number;
  close(code: number, reason: string): void;
}

/** What a hub keeps on each socket across hibernation (`serializeAttachment`). */
export interface SocketAttachment {
  id: string;
  keyId: number;
}

/**
 * What a WebSocket client has not acknowledged. The runtime queues a socket's sends without bound
 * and reports no `bufferedAmount`, so the only measure of what a client has read is what it says:
 * `{"type":"ack","seq":n}` for the data messages up to `n` (the SDK sends it as it reads).
 */
export class AckWindow {
  #seq = 0;
  #outstanding: [seq: number, bytes: number][] = [];
  #bytes = 0;

  next(): number {
    return this.#seq + 1;
  }

  sent(seq: number, bytes: number): void {
    this.#seq = seq;
    this.#outstanding.push([seq, bytes]);
    this.#bytes += bytes;
  }

  ack(seq: number): void {
    while (this.#outstanding.length > 0 && this.#outstanding[0]![0] <= seq) this.#bytes -= this.#outstanding.shift()![1];
  }

  get bytes(): number {
    return this.#bytes;
  }
}

export function socketConnection(ws: WebSocket, window: AckWindow): Connection {
  const { id } = ws.deserializeAttachment() as SocketAttachment;
  return {
    id,
    send: (message) => {
      const text = JSON.stringify(message);
      ws.send(text);
      if ("seq" in message) window.sent(message.seq, text.length);
    },
    buffered: () => window.bytes,
    nextSeq: () => window.next(),
    close: (code, reason) => {
      try {
        ws.close(code, reason);
      } catch {
        // Already closed by the client.
      }
    },
  };
}

const encoder = new TextEncoder();

/**
 * A Server-Sent Events stream: each message is an event named by its type, a data line of JSON and,
 * for data, the cursor as the event's id (the browser's `Last-Event-ID` on reconnect). What the client
 * has not read yet is counted by the writes still pending; a close is an event, then the end.
 */
export class SseConnection implements Connection {
  readonly response: Response;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = 0;
  #closed = false;
  #seq = 0;

  constructor(
    readonly id: string,
    onGone: () => void,
  ) {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    this.#writer = writable.getWriter();
    void this.#writer.closed
      .catch(() => undefined)
      .finally(() => {
        this.#closed = true;
        onGone();
      });
    this.response = new Response(readable, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
    });
  }

  send(message: ServerMessage, eventId?: string): void {
    if (this.#closed) return;
    if ("seq" in message) this.#seq = message.seq;
    const bytes = encoder.encode(`event: ${message.type}\n${eventId ? `id: ${eventId}\n` : ""}data: ${JSON.stringify(message)}\n\n`);
    this.#pending += bytes.byteLength;
    this.#writer.write(bytes).then(
      () => (this.#pending -= bytes.byteLength),
      () => (this.#closed = true),
    );
  }

  /** What the response stream holds that the client has not read: its writes still pending. */
  buffered(): number {
    return this.#pending;
  }

  nextSeq(): number {
    return this.#seq + 1;
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.send({ type: "closing", code, reason });
    this.#closed = true;
    void this.#writer.close().catch(() => undefined);
  }
}
