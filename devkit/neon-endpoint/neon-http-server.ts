import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { listenOn } from "../listen";
import {
  DatabaseUnavailableError,
  sqlState,
  type Params,
  type RawResult,
  type SqlBackend,
  type TransactionOptions,
} from "../../ingest/db/sql-backend";

/**
 * A local stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), so the Worker runs the same
 * driver code locally and in tests as in production. Protocol as implemented by
 * `@neondatabase/serverless`: a single `{query, params}` or a batch `{queries: [...]}` run in one
 * transaction shaped by the `Neon-Batch-*` headers; results as raw text values with type OIDs.
 *
 * Errors as Neon's proxy answers them (neondatabase/neon, proxy/src/serverless/sql_over_http.rs):
 * always a JSON body with `message` and every Postgres error field (`code` and `severity` "" and
 * the others null when Postgres sent none);
 * - 400 for a statement Postgres refused (its SQLSTATE in `code`, 57P01 included when it shuts
 *   down under the statement), for a session that broke mid-statement (`code` ""), and for a
 *   malformed request;
 * - 500 when no session could be had: "Couldn't connect to compute node" with `code` "" when the
 *   server cannot be reached, Postgres' own message and SQLSTATE when it refuses the session
 *   (53300 too many connections, 57P03 starting up or shutting down), except 3D000 (no such
 *   database), which Neon counts as the caller's mistake: 400.
 */

const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "position",
  "internalPosition",
  "internalQuery",
  "where",
  "schema",
  "table",
  "column",
  "dataType",
  "constraint",
  "file",
  "line",
  "routine",
  "severity",
] as const;

/** Neon's message when the proxy cannot reach the compute (`COULD_NOT_CONNECT` in proxy/src/compute/mod.rs). */
const COULD_NOT_CONNECT = "Couldn't connect to compute node";
/** Neon's message for a session that broke under a statement (tokio-postgres' `Kind::Closed`). */
const CONNECTION_CLOSED = "connection closed";

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const ISOLATION_LEVELS = new Set(["ReadUncommitted", "ReadCommitted", "RepeatableRead", "Serializable"]);

class ProtocolError extends Error {}

interface QueryPayload {
  query: string;
  params: Params;
}

function parseQuery(value: unknown): QueryPayload {
  if (typeof value !== "object" || value === null) throw new ProtocolError("query must be an object");
  const { query, params = [] } = value as { query?: unknown; params?: unknown };
  if (typeof query !== "string") throw new ProtocolError("query must be a string");
  if (!Array.isArray(params)) throw new ProtocolError("params must be an array");
  return {
    query,
    params: params.map((p) => (p === null || p === undefined ? null : typeof p === "string" ? p : JSON.stringify(p))),
  };
}

function booleanHeader(req: IncomingMessage, name: string): boolean | undefined {
  const value = req.headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new ProtocolError(`${name} must be true or false`);
}

function batchOptions(req: IncomingMessage): TransactionOptions {
  const isolation = req.headers["neon-batch-isolation-level"];
  if (isolation !== undefined && (typeof isolation !== "string" || !ISOLATION_LEVELS.has(isolation))) {
    throw new ProtocolError("invalid Neon-Batch-Isolation-Level");
  }
  return {
    isolationLevel: isolation as TransactionOptions["isolationLevel"],
    readOnly: booleanHeader(req, "Neon-Batch-Read-Only"),
    deferrable: booleanHeader(req, "Neon-Batch-Deferrable"),
  };
}

function shape(result: RawResult, arrayMode: boolean) {
  const rows = arrayMode
    ? result.rows
    : result.rows.map((row) => Object.fromEntries(result.fields.map((f, i) => [f.name, row[i] ?? null])));
  return { command: result.command, rowCount: result.rowCount, rows, fields: result.fields, rowAsArray: arrayMode };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ProtocolError("request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

/** Neon's error body: the message, then each Postgres field of `source` ("" or null when absent). */
function errorBody(message: string, source?: unknown): Record<string, unknown> {
  const fields = (source ?? {}) as Record<string, unknown>;
  const body: Record<string, unknown> = { message };
  for (const field of ERROR_FIELDS) body[field] = fields[field] ?? (field === "code" || field === "severity" ? "" : null);
  return body;
}

/** Status and body for a failure, as Neon's proxy would answer it. */
function failure(err: unknown): [number, Record<string, unknown>] {
  if (err instanceof ProtocolError) return [400, errorBody(err.message)];
  if (err instanceof DatabaseUnavailableError) {
    if (err.phase === "query") return [400, errorBody(CONNECTION_CLOSED)];
    const code = sqlState(err.cause);
    if (!code) return [500, errorBody(COULD_NOT_CONNECT)];
    return [code === "3D000" ? 400 : 500, errorBody((err.cause as Error).message, err.cause)];
  }
  if (sqlState(err)) return [400, errorBody((err as Error).message, err)];
  return [500, errorBody("internal error in local SQL endpoint")];
}

/** Who may use the endpoint (callers that know this run's password), and how far away it pretends to be. */
export interface EndpointAccess {
  password: string;
  /**
   * Added to every SQL request, ms: the distance from the edge to the database's region, which a
   * local run does not have (`npm run bench -- --db-rtt 40`, `NEON_LATENCY_MS`). Default 0.
   */
  latencyMs?: number;
}

/** SQL requests served, per database name in the connection string: round trips, counted where they arrive. */
export class RoundTrips {
  readonly #byDatabase = new Map<string, number>();

  count(database: string): void {
    this.#byDatabase.set(database, (this.#byDatabase.get(database) ?? 0) + 1);
  }

  of(database: string): number {
    return this.#byDatabase.get(database) ?? 0;
  }
}

function samePassword(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The endpoint runs any SQL, so only its own clients may reach it: no browser (a page the
 * developer visits could POST text/plain without a preflight), no other host name (DNS
 * rebinding), and only requests whose `Neon-Connection-String` carries this run's password.
 * Returns the refusal, or null.
 */
function refusal(req: IncomingMessage, access: EndpointAccess): [number, Record<string, unknown>] | null {
  if (req.headers.origin !== undefined) return [403, errorBody("browsers may not use the local SQL endpoint")];
  const port = req.socket.localPort;
  if (!["127.0.0.1", "localhost", "[::1]"].some((h) => req.headers.host === `${h}:${port}`)) {
    return [403, errorBody("the local SQL endpoint answers only on the loopback address")];
  }
  if (req.url === "/health" || req.url?.startsWith("/stats?")) return null;
  const connection = req.headers["neon-connection-string"];
  const password = typeof connection === "string" ? URL.parse(connection)?.password : undefined;
  if (password === undefined || !samePassword(decodeURIComponent(password), access.password)) {
    return [401, errorBody("password authentication failed", { code: "28P01", severity: "FATAL" })];
  }
  return null;
}

/**
 * A database, or one still being prepared: the endpoint listens at once and holds each request until it is ready (a
 * test stack seeds its databases while the tiers that need none run).
 */
export type EndpointDatabase = SqlBackend | Promise<SqlBackend>;

async function handle(
  prepared: EndpointDatabase,
  access: EndpointAccess,
  trips: RoundTrips,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const arrived = performance.now();
  const refused = refusal(req, access);
  if (refused) return send(res, ...refused);
  let backend: SqlBackend;
  try {
    backend = await prepared;
  } catch (err) {
    return send(res, 500, errorBody(`the database behind this endpoint could not be prepared: ${(err as Error).message}`));
  }
  if (req.url === "/health" && req.method === "GET") return send(res, 200, { status: "ok", backend: backend.kind });
  const stats = /^\/stats\?database=([\w-]{1,64})$/.exec(req.url ?? "");
  if (stats && req.method === "GET") return send(res, 200, { database: stats[1], requests: trips.of(stats[1] as string) });
  if (req.url?.split("?")[0] !== "/sql") return send(res, 404, { message: "not found" });
  if (req.method !== "POST") return send(res, 405, { message: "method not allowed" });
  const database = URL.parse(String(req.headers["neon-connection-string"]))?.pathname.slice(1) ?? "";
  trips.count(database);
  if (access.latencyMs) await until(arrived + access.latencyMs);
  try {
    let payload: unknown;
    try {
      payload = JSON.parse(await readBody(req));
    } catch (err) {
      throw err instanceof ProtocolError ? err : new ProtocolError("body is not valid JSON");
    }
    const arrayMode = req.headers["neon-array-mode"] === "true";
    if (typeof payload === "object" && payload !== null && "queries" in payload) {
      const queries = (payload as { queries: unknown }).queries;
      if (!Array.isArray(queries)) throw new ProtocolError("queries must be an array");
      const parsed = queries.map(parseQuery);
      const options = batchOptions(req);
      const results = await backend.transaction(options, async (query) => {
        const out: RawResult[] = [];
        for (const q of parsed) out.push(await query(q.query, q.params));
        return out;
      });
      return send(res, 200, { results: results.map((r) => shape(r, arrayMode)) });
    }
    const { query, params } = parseQuery(payload);
    return send(res, 200, shape(await backend.query(query, params), arrayMode));
  } catch (err) {
    return send(res, ...failure(err));
  }
}

/**
 * Resolves at `deadline` (a `performance.now()` instant): a timer for all but the last 2 ms, then
 * turns of the event loop, so a simulated distance costs what it says to a fraction of a
 * millisecond (a timer alone fires up to a few ms late on a loaded machine) without holding a core.
 */
async function until(deadline: number): Promise<void> {
  const coarse = deadline - performance.now() - 2;
  if (coarse > 0) await new Promise((resolve) => setTimeout(resolve, coarse));
  while (performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

export interface NeonHttpServer {
  trips: RoundTrips;
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** The protocol's request listener, for servers that serve more than the protocol (test rigs). */
export function neonHttpListener(
  backend: EndpointDatabase,
  access: EndpointAccess,
  trips = new RoundTrips(),
): (req: IncomingMessage, res: ServerResponse) => void {
  // A database that could not be prepared is reported to each request, not as an unhandled rejection.
  if (backend instanceof Promise) backend.catch(() => undefined);
  return (req, res) => {
    handle(backend, access, trips, req, res).catch(() => {
      if (!res.headersSent) send(res, 500, errorBody("internal error in local SQL endpoint"));
    });
  };
}

/** Serves the protocol on 127.0.0.1 (port 0 picks a free one) to clients that know `access.password`. */
export async function startNeonHttpServer(backend: EndpointDatabase, access: EndpointAccess & { port?: number }): Promise<NeonHttpServer> {
  const port = access.port ?? 0;
  const trips = new RoundTrips();
  const server = createServer(neonHttpListener(backend, access, trips));
  server.keepAliveTimeout = 30_000;
  return {
    trips,
    server,
    port: await listenOn(server, port),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
