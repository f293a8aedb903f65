import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { from as copyFrom } from "pg-copy-streams";
import { copyBinary, copyFromSql } from "./copy-binary";
import type { CopyRows, IngestDatabase, TypedQuery } from "./database";

/** A column of a raw result, as the Postgres wire protocol describes it. */
export interface FieldInfo {
  name: string;
  tableID: number;
  columnID: number;
  dataTypeID: number;
  dataTypeSize: number;
  dataTypeModifier: number;
  format: "text";
}

/** A result with every value as Postgres' text output (or null), as Neon's raw-text mode sends it. */
export interface RawResult {
  command: string;
  rowCount: number | null;
  fields: FieldInfo[];
  rows: (string | null)[][];
}

export type Params = readonly (string | null)[];
export type RawQuery = (text: string, params: Params) => Promise<RawResult>;

export interface TransactionOptions {
  isolationLevel?: "ReadUncommitted" | "ReadCommitted" | "RepeatableRead" | "Serializable";
  readOnly?: boolean;
  deferrable?: boolean;
}

/** The SQLSTATE of an engine error, if it has one: five digits or capitals (Node's `ECONNREFUSED` is not one). */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * The engine was not there to run the statement: it could not be reached or refused the session
 * (`connect`), or the session broke under the statement without the server saying why (`query`).
 * `cause` is the socket's or the server's own error (with a SQLSTATE when the server sent one).
 */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
  constructor(
    readonly phase: "connect" | "query",
    cause: unknown,
  ) {
    super(`database unavailable (${phase}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * The Postgres engine behind the local Neon endpoint and the Node-side tools. `query` and
 * `transaction` throw `DatabaseUnavailableError` when the engine is not there, and the engine's
 * own error (with its SQLSTATE `code`) when it ran the statement and refused it.
 */
export interface SqlBackend extends IngestDatabase {
  readonly kind: "pglite" | "postgres";
  /** One statement with text parameters, returning raw text values. */
  query: RawQuery;
  /** Statements run atomically in one transaction with the given characteristics. */
  transaction<T>(options: TransactionOptions, body: (query: RawQuery) => Promise<T>): Promise<T>;
  /** Several statements separated by semicolons (DDL, maintenance). */
  exec(sqlText: string): Promise<void>;
  /** Applies the drizzle-kit migrations in `folder` that have not run yet. */
  migrate(folder: string): Promise<void>;
  close(): Promise<void>;
}

const ISOLATION_SQL: Record<NonNullable<TransactionOptions["isolationLevel"]>, string> = {
  ReadUncommitted: "READ UNCOMMITTED",
  ReadCommitted: "READ COMMITTED",
  RepeatableRead: "REPEATABLE READ",
  Serializable: "SERIALIZABLE",
};

export function transactionCharacteristics(o: TransactionOptions): string {
  const parts: string[] = [];
  if (o.isolationLevel) parts.push(`ISOLATION LEVEL ${ISOLATION_SQL[o.isolationLevel]}`);
  if (o.readOnly !== undefined) parts.push(o.readOnly ? "READ ONLY" : "READ WRITE");
  if (o.deferrable !== undefined) parts.push(o.deferrable ? "DEFERRABLE" : "NOT DEFERRABLE");
  return parts.join(" ");
}

const identity = (value: any) => value;

class PgliteBackend implements SqlBackend {
  readonly kind = "pglite" as const;
  readonly #db: PGlite;
  #raw: { parsers: Record<number, typeof identity>; serializers: Record<number, typeof identity> } | undefined;

  constructor(db: PGlite) {
    this.#db = db;
  }

  /** Identity parsers and serializers for every known type: values cross as Postgres text. */
  #rawOptions() {
    if (!this.#raw) {
      const known = Object.keys((this.#db as unknown as { parsers: Record<string, unknown> }).parsers).map(Number);
      const table = Object.fromEntries(known.map((oid) => [oid, identity]));
      this.#raw = { parsers: table, serializers: table };
    }
    return this.#raw;
  }

  /** An in-process engine cannot be unreachable, only shut: its equivalent of refusing sessions. */
  async #available<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (!sqlState(err) && (this.#db.closed || /^PGlite is clos(ed|ing)/.test((err as Error).message ?? ""))) {
        throw new DatabaseUnavailableError("connect", err);
      }
      throw err;
    }
  }

  async #run(target: { query: PGlite["query"] }, text: string, params: Params): Promise<RawResult> {
    const result = await target.query<unknown[]>(text, [...params], { rowMode: "array", ...this.#rawOptions() });
    const r = result as typeof result & { command?: string; rowCount?: number };
    return {
      command: r.command ?? "",
      rowCount: r.rowCount ?? r.affectedRows ?? result.rows.length,
      fields: result.fields.map((f) => ({
        name: f.name,
        tableID: 0,
        columnID: 0,
        dataTypeID: f.dataTypeID,
        dataTypeSize: -1,
        dataTypeModifier: -1,
        format: "text",
      })),
      rows: result.rows as (string | null)[][],
    };
  }

  query: RawQuery = (text, params) => this.#available(() => this.#run(this.#db, text, params));

  async transaction<T>(options: TransactionOptions, body: (query: RawQuery) => Promise<T>): Promise<T> {
    return this.#available(() =>
      this.#db.transaction(async (tx) => {
        const characteristics = transactionCharacteristics(options);
        if (characteristics) await tx.exec(`SET TRANSACTION ${characteristics}`);
        return body((text, params) => this.#run(tx, text, params));
      }),
    );
  }

  typedQuery: TypedQuery = async (text, params = []) => {
    const result = await this.#db.query<Record<string, unknown>>(text, params);
    return { rows: result.rows };
  };

  async typedTransaction<T>(body: (query: TypedQuery, copy: CopyRows) => Promise<T>): Promise<T> {
    return this.#available(() =>
      this.#db.transaction((tx) =>
        body(
          async (text, params = []) => ({ rows: (await tx.query<Record<string, unknown>>(text, params)).rows }),
          // PGlite reads COPY data from a blob it is handed as /dev/blob.
          async (table, columns, rows) => {
            const blob = new Blob([...copyBinary(columns, rows)]);
            await tx.query(copyFromSql(table, columns, "'/dev/blob'"), [], { blob });
          },
        ),
      ),
    );
  }

  async exec(sqlText: string): Promise<void> {
    await this.#db.exec(sqlText);
  }

  async migrate(folder: string): Promise<void> {
    await migratePglite(drizzlePglite({ client: this.#db }), { migrationsFolder: folder });
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}

const rawTypes = { getTypeParser: () => identity } as unknown as pg.CustomTypesConfig;

function rawFromPg(result: pg.QueryResult<unknown[]>): RawResult {
  return {
    command: result.command,
    rowCount: result.rowCount,
    fields: result.fields.map((f) => ({
      name: f.name,
      tableID: f.tableID,
      columnID: f.columnID,
      dataTypeID: f.dataTypeID,
      dataTypeSize: f.dataTypeSize,
      dataTypeModifier: f.dataTypeModifier,
      format: "text",
    })),
    rows: result.rows as (string | null)[][],
  };
}

/**
 * How long to wait for a session (a new connection, or a free one of the pool) before answering
 * that the database is unavailable: a server that drops packets must not hang requests.
 */
const CONNECT_TIMEOUT_MS = 10_000;

class PostgresBackend implements SqlBackend {
  readonly kind = "postgres" as const;
  readonly #pool: pg.Pool;
  readonly #heard = new WeakSet<pg.PoolClient>();

  constructor(connectionString: string) {
    this.#pool = new pg.Pool({ connectionString, max: 16, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    this.#pool.on("error", () => undefined);
  }

  /** A pooled session; not getting one means the server is unreachable or refuses sessions (53300, 57P03…). */
  async #session(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw new DatabaseUnavailableError("connect", err);
    }
    // A connection that drops while checked out between statements emits 'error' on its client: unheard,
    // it would end the process; its next statement fails and the pool discards it.
    if (!this.#heard.has(client)) {
      client.on("error", () => undefined);
      this.#heard.add(client);
    }
    return client;
  }

  async #run(client: pg.PoolClient, text: string, params: Params): Promise<RawResult> {
    try {
      return rawFromPg(await client.query<unknown[]>({ text, values: [...params], rowMode: "array", types: rawTypes }));
    } catch (err) {
      // The server answers every statement it ran with a SQLSTATE (57P01 when it shuts down under
      // it); without one, the session broke before any answer.
      throw sqlState(err) ? err : new DatabaseUnavailableError("query", err);
    }
  }

  /** Runs `work` on one session, dropping the session from the pool if it broke. */
  async #withSession<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#session();
    let broken = false;
    try {
      return await work(client);
    } catch (err) {
      broken = err instanceof DatabaseUnavailableError;
      throw err;
    } finally {
      client.release(broken);
    }
  }

  query: RawQuery = (text, params) => this.#withSession((client) => this.#run(client, text, params));

  async transaction<T>(options: TransactionOptions, body: (query: RawQuery) => Promise<T>): Promise<T> {
    return this.#withSession(async (client) => {
      await this.#run(client, `BEGIN ${transactionCharacteristics(options)}`, []);
      try {
        const result = await body((text, params) => this.#run(client, text, params));
        await this.#run(client, "COMMIT", []);
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      }
    });
  }

  typedQuery: TypedQuery = async (text, params = []) => {
    const result = await this.#pool.query(text, params);
    return { rows: result.rows as Record<string, unknown>[] };
  };

  async typedTransaction<T>(body: (query: TypedQuery, copy: CopyRows) => Promise<T>): Promise<T> {
    return this.#withSession(async (client) => {
      await client.query("BEGIN");
      try {
        const result = await body(
          async (text, params = []) => ({ rows: (await client.query(text, params)).rows as Record<string, unknown>[] }),
          async (table, columns, rows) => {
            await pipeline(Readable.from(copyBinary(columns, rows)), client.query(copyFrom(copyFromSql(table, columns, "stdin"))));
          },
        );
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      }
    });
  }

  async exec(sqlText: string): Promise<void> {
    await this.#pool.query(sqlText);
  }

  async migrate(folder: string): Promise<void> {
    await migratePg(drizzlePg({ client: this.#pool }), { migrationsFolder: folder });
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

/**
 * The engine named by the environment: a PostgreSQL server when `DATABASE_URL` is set, else
 * embedded PGlite persisted in `dataDir` (`memory://` for a throwaway database).
 */
export async function openBackend(options: { databaseUrl?: string; dataDir: string }): Promise<SqlBackend> {
  if (options.databaseUrl) return new PostgresBackend(options.databaseUrl);
  const db = await PGlite.create(options.dataDir);
  return new PgliteBackend(db);
}
