/** A typed statement: JS values in (arrays, numbers, strings), parsed rows out. */
export type TypedQuery = (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** A value of a COPY row: text, a number, a boolean or NULL (dates and timestamps as ISO strings). */
export type CopyValue = string | number | boolean | null;

/** The column types COPY writes (PostgreSQL's names for the types our schema uses). */
export type CopyType = "text" | "float8" | "int4" | "int8" | "int2" | "bool" | "date" | "timestamptz";

export interface CopyColumn {
  name: string;
  type: CopyType;
}

/**
 * Rows into `table`'s `columns` by `COPY … FROM STDIN` (binary format), in the transaction's own
 * session: the bulk path where parameter arrays cost more than the write (a minute of quotes).
 */
export type CopyRows = (table: string, columns: readonly CopyColumn[], rows: Iterable<readonly CopyValue[]>) => Promise<void>;

/** What the ingestion pipeline needs of its database; the Node-side backends (PGlite, PostgreSQL) provide it. */
export interface IngestDatabase {
  typedQuery: TypedQuery;
  /** Statements run atomically in one transaction: a batch's events and the positions they reach. */
  typedTransaction<T>(body: (query: TypedQuery, copy: CopyRows) => Promise<T>): Promise<T>;
}
