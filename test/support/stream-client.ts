import type { ServerMessage } from "../../src/streams/messages";
import { call } from "./worker";

/** A WebSocket on `/v1/stream` through the Worker's entry, with every message it receives kept in order. */
export interface TestStream {
  socket: WebSocket;
  messages: ServerMessage[];
  send(message: unknown): void;
  /** The first message from `from` on that satisfies `match`, waiting up to `timeoutMs`. */
  next<T extends ServerMessage["type"]>(
    type: T,
    match?: (m: Extract<ServerMessage, { type: T }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<ServerMessage, { type: T }>>;
  closed: Promise<{ code: number; reason: string }>;
}

/** `ack`: acknowledge each data message as it arrives, as the SDK does (without it the stream lags past its window). */
export async function openStream(key: string, headers: Record<string, string> = {}, options: { ack?: boolean } = {}): Promise<TestStream> {
  const res = await call("/v1/stream", { headers: { Authorization: `Bearer ${key}`, Upgrade: "websocket", ...headers } });
  const socket = res.webSocket;
  if (res.status !== 101 || !socket) throw new Error(`no upgrade: ${res.status} ${await res.text()}`);
  socket.accept();
  const messages: ServerMessage[] = [];
  const waiters = new Set<() => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data as string) as ServerMessage;
    messages.push(message);
    if (options.ack && "seq" in message) socket.send(JSON.stringify({ type: "ack", seq: message.seq }));
    for (const wake of waiters) wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })),
  );
  let consumed = 0;
  return {
    socket,
    messages,
    closed,
    send: (message) => socket.send(JSON.stringify(message)),
    next: (type, match = () => true, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const look = () => {
          for (let i = consumed; i < messages.length; i++) {
            const m = messages[i]!;
            if (m.type === type && match(m as never)) {
              consumed = i + 1;
              waiters.delete(look);
              clearTimeout(timer);
              resolve(m as never);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no '${type}' message within ${timeoutMs} ms; got ${JSON.stringify(messages.slice(consumed)).slice(0, 600)}`));
        }, timeoutMs);
        waiters.add(look);
        look();
      }),
  };
}
