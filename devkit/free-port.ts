import { createServer } from "node:net";

/**
 * The ports handed out in this process, shared by every copy of this module (the test config and
 * its global setup load their own): the system may hand a port just released back at once, and two
 * servers given the same port fail to start (EADDRINUSE in a CI run).
 */
const handedOut: Set<number> = ((globalThis as Record<symbol, unknown>)[Symbol.for("ods.free-ports")] ??= new Set<number>()) as Set<number>;

/** A port the system offers for a listener on 127.0.0.1 (0 when it names none). */
function offeredPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A loopback port nobody listens on right now, and not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await offeredPort();
    if (port === 0 || handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}
