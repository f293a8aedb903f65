import type { SqlBackend } from "../../ingest/db/sql-backend";

/**
 * Drops the secondary indexes of `tables` (primary keys stay), runs the bulk load, and re-creates
 * them from their own definitions as Postgres reports them: building an index once is far cheaper
 * than maintaining it across millions of inserts. The definitions are never written twice. A
 * partitioned table's are reported `ON ONLY` the parent, which would build nothing on its
 * partitions and leave the index invalid: they are re-created on the whole table.
 */
export async function withIndexesDeferred<T>(backend: SqlBackend, tables: string[], load: () => Promise<T>): Promise<T> {
  const { rows } = await backend.typedQuery(
    `select i.indexname as name, i.indexdef as definition
       from pg_indexes i
      where i.schemaname = 'public' and i.tablename = any($1::text[])
        and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
    [tables],
  );
  const indexes = rows as { name: string; definition: string }[];
  for (const index of indexes) await backend.exec(`drop index if exists "${index.name}"`);
  try {
    return await load();
  } finally {
    for (const index of indexes) await backend.exec(index.definition.replace(" ON ONLY ", " ON "));
  }
}
