import type { SqlBackend } from "./sql-backend";

/** Postgres element type of each column, for `unnest($n::type[])`. */
export type ColumnTypes = Record<string, "text" | "date" | "timestamptz" | "float8" | "int4" | "int8" | "bool" | "int2">;

const CHUNK_ROWS = 20_000;

/**
 * Inserts rows with one `INSERT … SELECT FROM unnest(arrays)` per chunk: a single statement per
 * 20k rows, parameterised, on either backend. Returns the number of rows written.
 */
export async function bulkInsert(
  backend: SqlBackend,
  table: string,
  types: ColumnTypes,
  rows: readonly (readonly unknown[])[],
  onConflict = "",
): Promise<number> {
  const columns = Object.keys(types);
  const select = columns.map((c, i) => `$${i + 1}::${types[c]}[]`).join(", ");
  const text = `insert into ${table} (${columns.join(", ")}) select * from unnest(${select}) ${onConflict}`;
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const chunk = rows.slice(start, start + CHUNK_ROWS);
    const arrays = columns.map((_, i) => chunk.map((row) => row[i] ?? null));
    await backend.typedQuery(text, arrays);
  }
  return rows.length;
}
