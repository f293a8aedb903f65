import { createServer } from "node:net";

/**
 * Ports are handed out below Linux's ephemeral range (32768–60999): the kernel gives that range to
 * every `listen(0)` and outgoing connection, so a port chosen there can be taken by another process
 * between the check and its use (seen as a wrangler "Address already in use" under a busy suite).
 */
const FIRST = 20_000;
const LAST = 32_767;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A loopback port nobody listens on right now, outside the range the kernel hands out by itself. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST + 1));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port between ${FIRST} and ${LAST}`);
}
