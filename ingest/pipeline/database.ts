/** A typed statement: JS values in (arrays, numbers, strings), parsed rows out. */
export type TypedQuery = (text: string, params?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** What the ingestion pipeline needs of its database; the Node-side backends (PGlite, PostgreSQL) provide it. */
export interface IngestDatabase {
  typedQuery: TypedQuery;
  /** Statements run atomically in one transaction: a batch's events and the positions they reach. */
  typedTransaction<T>(body: (query: TypedQuery) => Promise<T>): Promise<T>;
}
