import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Params, RawResult, SqlBackend, TransactionOptions } from "./sql-backend";

/**
 * A local stand-in for Neon's SQL-over-HTTP endpoint (`POST /sql`), so the Worker runs the same
 * driver code locally and in tests as in production. Protocol as implemented by
 * `@neondatabase/serverless`: a single `{query, params}` or a batch `{queries: [...]}` run in one
 * transaction shaped by the `Neon-Batch-*` headers; results as raw text values with type OIDs;
 * database errors as HTTP 400 `{message, code, ...}`.
 */

const ERROR_FIELDS = [
  "severity",
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
] as const;

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

function databaseError(err: unknown): Record<string, unknown> | undefined {
  if (!(err instanceof Error) || typeof (err as { code?: unknown }).code !== "string") return undefined;
  const body: Record<string, unknown> = { message: err.message };
  for (const field of ERROR_FIELDS) {
    const value = (err as unknown as Record<string, unknown>)[field];
    if (value !== undefined) body[field] = value;
  }
  return body;
}

async function handle(backend: SqlBackend, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === "/health" && req.method === "GET") return send(res, 200, { status: "ok", backend: backend.kind });
  if (req.url?.split("?")[0] !== "/sql") return send(res, 404, { message: "not found" });
  if (req.method !== "POST") return send(res, 405, { message: "method not allowed" });
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
    if (err instanceof ProtocolError) return send(res, 400, { message: err.message });
    const dbError = databaseError(err);
    if (dbError) return send(res, 400, dbError);
    return send(res, 500, { message: "internal error in local SQL endpoint" });
  }
}

export interface NeonHttpServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Serves the protocol on 127.0.0.1 (port 0 picks a free one). */
export async function startNeonHttpServer(backend: SqlBackend, port = 0): Promise<NeonHttpServer> {
  const server = createServer((req, res) => {
    handle(backend, req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { message: "internal error in local SQL endpoint" });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
