import type { ChildProcess } from "node:child_process";
import { createServer, Server, type AddressInfo } from "node:net";

/**
 * Loopback sockets bound ahead of their server, by port, shared by every copy of this module in the
 * process (the test config and its global setup load their own).
 */
const RESERVED = Symbol.for("ods.reserved-ports");
const reserved = ((globalThis as Record<symbol, unknown>)[RESERVED] ??= new Map<number, Server>()) as Map<number, Server>;

/**
 * A loopback port bound now and kept bound until a server of this process takes the socket over
 * (`listenOn` with that port): for a port that must be known before its server can start (the
 * Worker's bindings name the test endpoints). Nothing else can take it in between, unlike a port
 * found free and bound later.
 */
export async function reservePort(): Promise<number> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => {
    holder.once("error", reject);
    holder.listen(0, "127.0.0.1", () => resolve());
  });
  // A port reserved and never taken (a test tier that starts none of the servers) must not keep the process alive.
  holder.unref();
  const port = (holder.address() as AddressInfo).port;
  reserved.set(port, holder);
  return port;
}

/**
 * Starts `server` on 127.0.0.1:`port` and resolves to the port it listens on: the socket
 * `reservePort` bound for it, else bound now (0, the default: a port the system picks).
 */
export function listenOn(server: Server, port = 0): Promise<number> {
  const holder = reserved.get(port);
  reserved.delete(port);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const listening = () => {
      server.off("error", reject);
      // The reserved socket was unref'd; taken over, it keeps the process alive as any server's does.
      server.ref();
      resolve((server.address() as AddressInfo).port);
    };
    // Node takes over a listening server's handle: the same bound socket, now accepting for `server`.
    if (holder) server.listen(holder, listening);
    else server.listen(port, "127.0.0.1", listening);
  });
}

/** A loopback port nothing listens on, for a connection that must be refused; never bind it (that is `reservePort`'s job). */
export async function unboundPort(): Promise<number> {
  const probe = createServer();
  const port = await listenOn(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Hands the socket reserved for `port` to a child process over its IPC channel (a test stack run off the main
 * process): there, `listenOn(server, port)` takes it over once `acceptReserved` has received it.
 */
export function sendReserved(child: ChildProcess, port: number): Promise<void> {
  const holder = reserved.get(port);
  if (!holder) return Promise.reject(new Error(`port ${port} is not reserved in this process`));
  reserved.delete(port);
  return new Promise((resolve, reject) =>
    child.send({ reservedPort: port }, holder, (err) => {
      if (err) return reject(err);
      // The child holds its own copy of the socket: this process stops accepting on it.
      holder.close();
      resolve();
    }),
  );
}

/** In a child process: keeps each socket `sendReserved` hands over, for `listenOn`. */
export function acceptReserved(): void {
  process.on("message", (message, handle) => {
    const port = (message as { reservedPort?: unknown } | null)?.reservedPort;
    if (typeof port === "number" && handle instanceof Server) {
      handle.unref();
      reserved.set(port, handle);
    }
  });
}
