import { createServer, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { setImmediate } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { listenOn, reservePort, unboundPort } from "../../devkit/listen";

const started: Server[] = [];
afterEach(async () => {
  await Promise.all(
    started.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

const answering = (body: string) => {
  const server = createServer((_req, res) => res.end(body));
  started.push(server);
  return server;
};

/** Other listeners coming and going on the machine until `stop` resolves: each binds a port the system picks and frees it. */
async function churn(stop: Promise<void>): Promise<number> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  let bound = 0;
  while (!stopped) {
    const other = createTcpServer();
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", () => resolve()));
    bound++;
    await new Promise((resolve) => other.close(resolve));
    await setImmediate();
  }
  return bound;
}

describe("ports for the test servers and npm run dev (devkit/listen.ts)", () => {
  it("keeps a reserved port from every other listener until its server takes the socket over, which then answers on it", async () => {
    const port = await reservePort();
    const squatter = createTcpServer();
    const refused = await new Promise<string>((resolve) => {
      squatter.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "?"));
      squatter.listen(port, "127.0.0.1", () => resolve("bound"));
    });
    expect(refused).toBe("EADDRINUSE");
    expect(await listenOn(answering("ours"), port)).toBe(port);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ours");
  });

  it("starts every server on the port reserved for it while other listeners come and go", async () => {
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const others = Promise.all([churn(stopped), churn(stopped)]);
    try {
      const ports = await Promise.all(Array.from({ length: 40 }, () => reservePort()));
      // The machine's churn has had time to reach the ports handed out, as it would between a config and its setup.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const listening = await Promise.all(ports.map((port, i) => listenOn(answering(`server ${i}`), port)));
      expect(listening).toEqual(ports);
      const bodies = await Promise.all(ports.map(async (port) => (await fetch(`http://127.0.0.1:${port}/`)).text()));
      expect(bodies).toEqual(ports.map((_, i) => `server ${i}`));
    } finally {
      stop();
    }
    expect((await others).reduce((a, b) => a + b, 0)).toBeGreaterThan(40);
  });

  it("binds port 0 to one the system picks, and gives an unbound port for connections that must be refused", async () => {
    const port = await listenOn(answering("any"));
    expect(port).toBeGreaterThan(0);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("any");
    const dead = await unboundPort();
    await expect(fetch(`http://127.0.0.1:${dead}/`)).rejects.toThrow();
  });
});
