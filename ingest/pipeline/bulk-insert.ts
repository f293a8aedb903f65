import { getTableColumns, getTableName } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { CopyColumn, CopyType, TypedQuery } from "./database";

const CHUNK_ROWS = 20_000;

/** Postgres element type of each SQL type our schema uses, for `unnest($n::type[])` and COPY. */
const ELEMENT_TYPES: Record<string, CopyType> = {
  text: "text",
  "double precision": "float8",
  integer: "int4",
  bigint: "int8",
  smallint: "int2",
  boolean: "bool",
  date: "date",
  "timestamp with time zone": "timestamptz",
};

/** A row of `table` keyed by its drizzle property names, as drizzle itself would insert it. */
export type InsertRow<T extends PgTable> = T["$inferInsert"];

/**
 * Inserts rows with one `INSERT … SELECT FROM unnest(arrays)` per 20k rows: parameterised, on
 * either backend. Columns, their SQL names and element types come from the drizzle schema: the
 * columns written are those the first row names (all rows have one shape), in the table's order.
 * `onConflict` receives the SQL column names written. Returns the number of rows.
 */
export async function bulkInsert<T extends PgTable>(
  query: TypedQuery,
  table: T,
  rows: readonly InsertRow<T>[],
  onConflict: (columns: string[]) => string = () => "",
): Promise<number> {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (!first) return 0;
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => key in first);
  const types = columns.map(([key, column]) => {
    const type = ELEMENT_TYPES[column.getSQLType()];
    if (!type) throw new Error(`bulkInsert: no array element type for ${getTableName(table)}.${key} (${column.getSQLType()})`);
    return type;
  });
  const names = columns.map(([, column]) => column.name);
  const select = types.map((type, i) => `$${i + 1}::${type}[]`).join(", ");
  const text = `insert into ${getTableName(table)} (${names.join(", ")}) select * from unnest(${select}) ${onConflict(names)}`;
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const chunk = rows.slice(start, start + CHUNK_ROWS) as Record<string, unknown>[];
    await query(
      text,
      columns.map(([key]) => chunk.map((row) => row[key] ?? null)),
    );
  }
  return rows.length;
}

/** `on conflict (key) do update set` every other written column: an upsert. */
export function updateOnConflict(key: string[], where = ""): (columns: string[]) => string {
  return (columns) =>
    `on conflict (${key.join(", ")}) ${where} do update set ${columns
      .filter((c) => !key.includes(c))
      .map((c) => `${c} = excluded.${c}`)
      .join(", ")}`;
}

/** The COPY columns (SQL names and types) of `table`'s properties `keys`, in that order. */
export function copyColumns<T extends PgTable>(table: T, keys: readonly (keyof T["$inferInsert"] & string)[]): CopyColumn[] {
  const columns = getTableColumns(table);
  return keys.map((key) => {
    const column = columns[key];
    const type = column && ELEMENT_TYPES[column.getSQLType()];
    if (!column || !type) throw new Error(`copyColumns: no COPY type for ${getTableName(table)}.${key}`);
    return { name: column.name, type };
  });
}
