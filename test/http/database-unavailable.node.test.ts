import { testSqlPassword } from "../support/sql-password";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { neon, neonConfig } from "@neondatabase/serverless";
import { drizzle } from "drizzle-orm/neon-http";
import { sql } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unboundPort } from "../../devkit/listen";
import { startNeonHttpServer, type NeonHttpServer } from "../../devkit/neon-endpoint/neon-http-server";
import { DatabaseUnavailableError, openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { forRpc, isDatabaseUnavailable } from "../../src/db/errors";
import { testDatabaseUrl } from "../support/test-database";

/**
 * A database that is not there, as Neon's SQL-over-HTTP endpoint reports it and as the Worker
 * maps it. The shapes come from Neon's proxy (neondatabase/neon, proxy/src/serverless/
 * sql_over_http.rs and backend.rs) and from answers recorded in its issues; docs/decisions.md.
 */

neonConfig.fetchEndpoint = (host, port) => `http://${host}:${port}/sql`;

/** Neon's body for an error without Postgres fields. */
const neonBody = (message: string, fields: Record<string, unknown> = {}) => ({
  message,
  code: "",
  detail: null,
  hint: null,
  position: null,
  internalPosition: null,
  internalQuery: null,
  severity: "",
  where: null,
  table: null,
  column: null,
  schema: null,
  dataType: null,
  constraint: null,
  file: null,
  line: null,
  routine: null,
  ...fields,
});

async function post(port: number, query: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}/sql`, {
    method: "POST",
    headers: { "Neon-Connection-String": `postgresql://app:app@127.0.0.1:${port}/db` },
    body: JSON.stringify({ query, params: [] }),
  });
  return { status: res.status, body: await res.json() };
}

/** The driver's error for `query` sent to an endpoint on `port`. */
const driverError = (port: number, query = "select 1", password = "app") =>
  neon(`postgresql://app:${password}@127.0.0.1:${port}/db`)
    .query(query)
    .then(
      () => undefined,
      (err: unknown) => err,
    );

/** A backend whose statements all fail with `err`. */
function failing(err: unknown): SqlBackend {
  const fail = async (): Promise<never> => {
    throw err;
  };
  return {
    kind: "postgres",
    query: fail,
    transaction: fail,
    typedQuery: fail,
    typedTransaction: fail,
    exec: fail,
    migrate: fail,
    close: async () => undefined,
  };
}

/** A Postgres error as pg raises it. */
function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: "FATAL", routine: "InitPostgres" });
}

describe("the local endpoint reports a database that is not there as Neon does", () => {
  const servers: NeonHttpServer[] = [];
  const serve = async (backend: SqlBackend) => {
    const server = await startNeonHttpServer(backend, { password: "app" });
    servers.push(server);
    return server.port;
  };
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it("answers 500 Couldn't connect to compute node when PostgreSQL refuses connections", async () => {
    const backend = await openBackend({ databaseUrl: `postgresql://postgres@127.0.0.1:${await unboundPort()}/none`, dataDir: "" });
    const port = await serve(backend);
    expect(await post(port, "select 1")).toEqual({ status: 500, body: neonBody("Couldn't connect to compute node") });
    expect(isDatabaseUnavailable(await driverError(port))).toBe(true);
    await backend.close();
  });

  it("answers the same when the PGlite instance is shut", async () => {
    const backend = await openBackend({ dataDir: "memory://" });
    await backend.close();
    const port = await serve(backend);
    expect(await post(port, "select 1")).toEqual({ status: 500, body: neonBody("Couldn't connect to compute node") });
  });

  it("forwards Postgres' refusal of a session with its SQLSTATE: 500, or 400 for a database that does not exist", async () => {
    const cases: [string, string, number][] = [
      ["53300", "sorry, too many clients already", 500],
      ["57P03", "the database system is shutting down", 500],
      ["3D000", 'database "none" does not exist', 400],
    ];
    for (const [code, message, status] of cases) {
      const port = await serve(failing(new DatabaseUnavailableError("connect", pgError(code, message))));
      const answer = await post(port, "select 1");
      expect(answer, code).toEqual({ status, body: neonBody(message, { code, severity: "FATAL", routine: "InitPostgres" }) });
      expect(isDatabaseUnavailable(await driverError(port)), code).toBe(code !== "3D000");
    }
  });

  it("answers 400 connection closed, code empty, when the session breaks under a statement", async () => {
    const port = await serve(failing(new DatabaseUnavailableError("query", new Error("Connection terminated unexpectedly"))));
    expect(await post(port, "select 1")).toEqual({ status: 400, body: neonBody("connection closed") });
    expect(isDatabaseUnavailable(await driverError(port))).toBe(true);
  });

  it.runIf(testDatabaseUrl())("answers 400 with 57P01 when PostgreSQL terminates the session running a statement", async () => {
    const port = Number(process.env.TEST_SQL_PORT);
    const marker = `outage_probe_${Date.now()}`;
    const running = driverError(port, `select pg_sleep(10) as ${marker}`, testSqlPassword());
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      let terminated = false;
      for (let i = 0; i < 100 && !terminated; i++) {
        const { rows } = await admin.query(
          "select pg_terminate_backend(pid) as done from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
          [`%${marker}%`],
        );
        terminated = rows.some((r: { done: boolean }) => r.done);
        if (!terminated) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(terminated).toBe(true);
    } finally {
      await admin.end();
    }
    const err = await running;
    expect(err).toMatchObject({ name: "NeonDbError", code: "57P01", message: "terminating connection due to administrator command" });
    expect(isDatabaseUnavailable(err)).toBe(true);
  });
});

/** What a Neon endpoint answers, by query text. */
const ANSWERS: Record<string, { status: number; body: string; unavailable: boolean }> = {};
function answer(name: string, status: number, body: unknown, unavailable: boolean): string {
  ANSWERS[name] = { status, body: typeof body === "string" ? body : JSON.stringify(body), unavailable };
  return name;
}
const CASES = [
  // Neon cannot reach the compute, or the control plane cannot wake it (recorded in neondatabase/neon#11975).
  answer("compute unreachable", 500, neonBody("Couldn't connect to compute node"), true),
  answer("control plane", 500, neonBody("Control plane request failed"), true),
  answer(
    "quota",
    500,
    neonBody("Control plane request failed: endpoint is temporarily unavailable. Check your quotas and/or contact our support."),
    true,
  ),
  // Postgres refuses the session, or shuts down under the statement.
  answer("too many connections", 500, neonBody("sorry, too many clients already", { code: "53300", severity: "FATAL" }), true),
  answer("starting up", 500, neonBody("the database system is starting up", { code: "57P03", severity: "FATAL" }), true),
  answer(
    "admin shutdown",
    400,
    neonBody("terminating connection due to administrator command", { code: "57P01", severity: "FATAL" }),
    true,
  ),
  answer("crash shutdown", 400, neonBody("terminating connection because of crash of another server process", { code: "57P02" }), true),
  answer("cancelled", 400, { message: "Query cancelled, connection was terminated", code: "08P01" }, true),
  answer("connection failure", 400, neonBody("connection to server was lost", { code: "08006" }), true),
  answer("session lost", 400, neonBody("connection closed"), true),
  answer("io error", 400, neonBody("error communicating with the server: Connection reset by peer (os error 104)"), true),
  answer("gateway", 502, "<html>Bad gateway</html>", true),
  // Postgres refused the statement, or the request itself is at fault.
  answer("syntax", 400, neonBody('syntax error at or near "selec"', { code: "42601", severity: "ERROR", position: "1" }), false),
  answer("missing table", 400, neonBody('relation "nope" does not exist', { code: "42P01", severity: "ERROR" }), false),
  answer("division", 400, neonBody("division by zero", { code: "22012", severity: "ERROR" }), false),
  answer("bad request", 400, neonBody("invalid isolation level"), false),
  answer("too large", 507, neonBody("response is too large (max is 10485760 bytes)"), false),
  answer("unparseable", 500, neonBody("could not parse postgres response"), false),
];

describe("the Worker's mapping of the driver's errors", () => {
  let stub: Server;
  let port = 0;
  beforeAll(async () => {
    stub = createServer(async (req, res) => {
      let text = "";
      for await (const chunk of req) text += chunk;
      const found = ANSWERS[(JSON.parse(text) as { query: string }).query]!;
      res.writeHead(found.status, { "Content-Type": "application/json" }).end(found.body);
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    port = (stub.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())));

  it.each(CASES)("%s", async (name) => {
    const err = await driverError(port, name);
    expect(err).toMatchObject({ name: "NeonDbError" });
    expect(isDatabaseUnavailable(err)).toBe(ANSWERS[name]!.unavailable);
  });

  it("sees through drizzle's wrapping", async () => {
    const db = drizzle({ client: neon(`postgresql://app:app@127.0.0.1:${port}/db`) });
    for (const [name, unavailable] of [
      ["compute unreachable", true],
      ["syntax", false],
    ] as const) {
      const err = await db.execute(sql.raw(name)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DrizzleQueryError);
      expect(isDatabaseUnavailable(err), name).toBe(unavailable);
    }
  });

  it("counts an endpoint that cannot be fetched as unavailable", async () => {
    expect(isDatabaseUnavailable(await driverError(await unboundPort()))).toBe(true);
  });

  it("keeps the verdict across a Durable Object RPC, which carries only the message", async () => {
    const down = await driverError(port, "compute unreachable");
    const refused = await driverError(port, "syntax");
    expect(isDatabaseUnavailable(new Error((forRpc(down) as Error).message))).toBe(true);
    expect(forRpc(refused)).toBe(refused);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnavailable("not an error")).toBe(false);
  });
});
