import { getTableColumns, getTableName } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { CopyColumn, CopyRows, CopyType, CopyValue, TypedQuery } from "./database";

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
  const { keys, columns } = writtenColumns(table, first);
  const names = columns.map((c) => c.name);
  const select = arrayParamsOf(columns);
  const text = `insert into ${getTableName(table)} (${names.join(", ")}) select * from unnest(${select}) ${onConflict(names)}`;
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    const chunk = rows.slice(start, start + CHUNK_ROWS) as Record<string, unknown>[];
    await query(
      text,
      keys.map((key) => chunk.map((row) => row[key] ?? null)),
    );
  }
  return rows.length;
}

/**
 * Inserts rows as `bulkInsert` does, staged by binary COPY into a temporary table of the session
 * (emptied at commit) and moved by one `INSERT … SELECT` in `order` (SQL, e.g. the key, for
 * writers that must lock rows in one order): neither side formats or parses the values as text,
 * which at tens of thousands of rows a batch costs more than the insert. Only inside a transaction.
 */
export async function copyInsert<T extends PgTable>(
  query: TypedQuery,
  copy: CopyRows,
  table: T,
  rows: readonly InsertRow<T>[],
  onConflict: (columns: string[]) => string = () => "",
  order?: string,
): Promise<number> {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (!first) return 0;
  const { keys, columns } = writtenColumns(table, first);
  const names = columns.map((c) => c.name).join(", ");
  const name = getTableName(table);
  // Every column of the table, whichever a call writes: the stage outlives the call (and its shape).
  await query(`create temp table if not exists ${name}_stage on commit delete rows as select * from ${name} with no data`);
  await copy(
    `${name}_stage`,
    columns,
    (rows as Record<string, unknown>[]).map((row) => keys.map((key) => (row[key] ?? null) as CopyValue)),
  );
  await query(
    `insert into ${name} (${names}) select ${names} from ${name}_stage ${order ? `order by ${order}` : ""} ${onConflict(columns.map((c) => c.name))}`,
  );
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

/** The properties a row of `table` names (all rows of a call have one shape), in the table's order, with their columns. */
function writtenColumns<T extends PgTable>(table: T, first: Record<string, unknown>): { keys: string[]; columns: CopyColumn[] } {
  const keys = Object.keys(getTableColumns(table)).filter((key) => key in first);
  return { keys, columns: copyColumns(table, keys as (keyof T["$inferInsert"] & string)[]) };
}

/**
 * Parameters `$from`, `$from + 1`, … as arrays of `table`'s columns `keys` (`$2::text[], $3::int8[]`),
 * for `unnest`: the element types the schema gives.
 */
export function arrayParams<T extends PgTable>(table: T, keys: readonly (keyof T["$inferInsert"] & string)[], from = 1): string {
  return arrayParamsOf(copyColumns(table, keys), from);
}

const arrayParamsOf = (columns: readonly CopyColumn[], from = 1) => columns.map(({ type }, i) => `$${from + i}::${type}[]`).join(", ");

/**
 * `unnest($from::type[], …) as alias(column, …)` of `table`'s columns `keys`, with its parameters:
 * `rows`' values of each key, one array a column (the form every batch statement here takes).
 */
export function unnestRows<T extends PgTable, K extends keyof T["$inferInsert"] & string>(
  table: T,
  keys: readonly K[],
  rows: readonly Pick<T["$inferInsert"], K>[],
  alias: string,
  from = 1,
): { sql: string; params: unknown[][] } {
  const columns = copyColumns(table, keys);
  return {
    sql: `unnest(${arrayParamsOf(columns, from)}) as ${alias}(${columns.map((c) => c.name).join(", ")})`,
    params: keys.map((key) => rows.map((row) => row[key])),
  };
}

/** The COPY columns (SQL names and types) of `table`'s properties `keys`, in that order. */
export function copyColumns<T extends PgTable>(table: T, keys: readonly (keyof T["$inferInsert"] & string)[]): CopyColumn[] {
  const columns = getTableColumns(table);
  return keys.map((key) => {
    const column = columns[key];
    const type = column && ELEMENT_TYPES[column.getSQLType()];
    if (!column || !type) throw new Error(`no COPY or array element type for ${getTableName(table)}.${key}`);
    return { name: column.name, type };
  });
}
