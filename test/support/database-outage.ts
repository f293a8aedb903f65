import { testSqlPassword } from "./sql-password";
import { createServer as createHttpServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { neonHttpListener } from "../../devkit/neon-endpoint/neon-http-server";
import { listenOn } from "../../devkit/listen";
import { DatabaseUnavailableError, openBackend, type SqlBackend } from "../../ingest/db/sql-backend";

/**
 * A second local Neon endpoint whose database the tests can stop and start while the Worker
 * keeps running (`POST /outage/stop`, `POST /outage/start`; `POST /outage/slow` delays every SQL request), leaving the shared endpoint alone:
 * - PostgreSQL: its own pool reaches the server through a TCP relay; stopping closes the relay's
 *   listener and cuts every session, so connecting is refused as with a stopped server;
 * - PGlite: in-process, it can only be shut; stopping makes the backend answer as a closed one.
 */
export interface OutageEndpoint {
  port: number;
  close(): Promise<void>;
}

/** A TCP relay to `target` that can stop listening (connections refused) and start again on its port. */
class Relay {
  #server: TcpServer | undefined;
  readonly #sockets = new Set<Socket>();
  port = 0;

  constructor(readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    if (this.#server) return;
    const server = createTcpServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", resolve);
    });
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

/** The shared PGlite backend, answering as a closed instance while stopped (closing is its owner's). */
function switchable(shared: SqlBackend): { backend: SqlBackend; setUp(up: boolean): void } {
  let up = true;
  const open = () => {
    if (!up) throw new DatabaseUnavailableError("connect", new Error("PGlite is closed"));
  };
  const backend: SqlBackend = {
    kind: shared.kind,
    query: async (text, params) => {
      open();
      return shared.query(text, params);
    },
    transaction: async (options, body) => {
      open();
      return shared.transaction(options, body);
    },
    typedQuery: (text, params) => shared.typedQuery(text, params),
    typedTransaction: (body) => shared.typedTransaction(body),
    exec: (sqlText) => shared.exec(sqlText),
    migrate: (folder) => shared.migrate(folder),
    close: async () => undefined,
  };
  return { backend, setUp: (value) => void (up = value) };
}

/** How late a `slow` database answers: past any budget a test sets, well inside a test's time. */
const SLOW_MS = 1_000;

/**
 * `shared` is the stack's backend, still being seeded: the endpoint listens at once and answers once it is ready,
 * as the stack's other endpoints do.
 */
export async function startOutageEndpoint(
  shared: Promise<SqlBackend>,
  databaseUrl: string | undefined,
  port: number,
): Promise<OutageEndpoint> {
  let relay: Relay | undefined;
  const prepared = (async () => {
    const seeded = await shared;
    if (!databaseUrl) {
      const s = switchable(seeded);
      return { backend: s.backend, setUp: async (up: boolean) => s.setUp(up) };
    }
    const url = new URL(databaseUrl);
    const r = (relay = new Relay({ host: url.hostname || "127.0.0.1", port: Number(url.port) || 5432 }));
    await r.start();
    url.hostname = "127.0.0.1";
    url.port = String(r.port);
    const backend = await openBackend({ databaseUrl: url.toString(), dataDir: "memory://" });
    return { backend, setUp: (up: boolean) => (up ? r.start() : r.stop()) };
  })();

  const sql = neonHttpListener(
    prepared.then((p) => p.backend),
    { password: testSqlPassword() },
  );
  // `slow`: every SQL request waits this long first (a database that answers, but late); `start` clears it.
  let delayMs = 0;
  const server: Server = createHttpServer((req, res) => {
    const action = req.method === "POST" ? /^\/outage\/(stop|start|slow)$/.exec(req.url ?? "")?.[1] : undefined;
    if (!action) {
      if (delayMs > 0) return void setTimeout(() => sql(req, res), delayMs);
      return sql(req, res);
    }
    if (action === "slow") {
      delayMs = SLOW_MS;
      return void res.writeHead(204).end();
    }
    delayMs = 0;
    prepared
      .then(({ setUp }) => setUp(action === "start"))
      .then(
        () => res.writeHead(204).end(),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
  });
  return {
    port: await listenOn(server, port),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const opened = await prepared.catch(() => undefined);
      await opened?.backend.close();
      await relay?.stop();
    },
  };
}
