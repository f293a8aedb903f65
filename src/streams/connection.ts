import type { ServerMessage } from "./messages";

/** One open stream as the hub writes to it, whatever its transport. */
export interface Connection {
  readonly id: string;
  /** Sends one message; `eventId` is SSE's `id:` (a cursor), ignored by WebSockets. */
  send(message: ServerMessage, eventId?: string): void;
  /** Bytes sent but not yet taken by the client. */
  buffered(): number;
  close(code: number, reason: string): void;
}

/** What a hub keeps on each socket across hibernation (`serializeAttachment`). */
export interface SocketAttachment {
  id: string;
  keyId: number;
}

export function socketConnection(ws: WebSocket): Connection {
  const { id } = ws.deserializeAttachment() as SocketAttachment;
  return {
    id,
    send: (message) => ws.send(JSON.stringify(message)),
    buffered: () => ws.bufferedAmount ?? 0,
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
    const bytes = encoder.encode(`event: ${message.type}\n${eventId ? `id: ${eventId}\n` : ""}data: ${JSON.stringify(message)}\n\n`);
    this.#pending += bytes.byteLength;
    this.#writer.write(bytes).then(
      () => (this.#pending -= bytes.byteLength),
      () => (this.#closed = true),
    );
  }

  buffered(): number {
    return this.#pending;
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.send({ type: "closing", code, reason });
    this.#closed = true;
    void this.#writer.close().catch(() => undefined);
  }
}
