import { getTableColumns, getTableName } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { TypedQuery } from "./database";

/*
 * The ingest side's rows typed from the drizzle schema the Worker reads the same tables with
 * (src/db/schema), and its statements written with the schema's table and column names: a column
 * the schema renames, drops or retypes fails to compile here rather than at run time. The
 * statements stay SQL (set-based, COPY where it pays); nothing here runs per row.
 */

/** A property of `table`'s rows: drizzle's name of one of its columns. */
export type Key<T extends PgTable> = keyof T["$inferSelect"] & string;

/** A row of `table` as drizzle reads it, or its columns `K`. */
export type Row<T extends PgTable, K extends Key<T> = Key<T>> = Pick<T["$inferSelect"], K>;

/** A value as `selectList` reads it: drizzle's type, but a 64-bit integer of bigint mode as its decimal text (for `BigInt`). */
type AsRead<V> = V extends bigint ? string : V;

/** The columns `K` of `table` as `selectList` reads them, under their property names. */
export type Selected<T extends PgTable, K extends Key<T> = Key<T>> = { [P in K]: AsRead<T["$inferSelect"][P]> };

/** The SQL names of `table`'s columns by property: `names.optionSymbol` is `"option_symbol"`. */
export type ColumnNames<T extends PgTable> = { readonly [K in Key<T>]: string };

export function columnNames<T extends PgTable>(table: T): ColumnNames<T> {
  return Object.fromEntries(Object.entries(getTableColumns(table)).map(([key, column]) => [key, column.name])) as ColumnNames<T>;
}

/** A table's SQL name (drizzle's `getTableName`), for statements written with `columnNames`. */
export const tableName = (table: PgTable): string => getTableName(table);

/** A table's SQL name and its columns' (`tableName`, `columnNames`), as a statement's module names them once. */
export function sqlNames<T extends PgTable>(table: T): [string, ColumnNames<T>] {
  return [tableName(table), columnNames(table)];
}

/**
 * How a column is read so that the drivers (node-postgres, PGlite) give what drizzle's type says:
 * dates and timestamps of string mode as their text (the drivers would make Dates of them), 64-bit
 * integers of number mode as float8 (node-postgres would give text) and of bigint mode as text.
 */
function readCast(sqlType: string, dataType: string): string {
  if (dataType === "string" && (sqlType === "date" || sqlType.startsWith("timestamp"))) return "::text";
  if (sqlType === "bigint" || sqlType === "bigserial") return dataType === "bigint" ? "::text" : "::float8";
  return "";
}

/**
 * `table`'s columns `keys` as a select list, each qualified by `alias` when given, read as the
 * schema types it (see `readCast`) and named by its property: rows of `Selected<T, K>`.
 */
export function selectList<T extends PgTable, K extends Key<T>>(table: T, keys: readonly K[], alias?: string): string {
  const columns = getTableColumns(table);
  return keys
    .map((key) => {
      const column = columns[key];
      if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
      const cast = readCast(column.getSQLType(), column.dataType);
      const value = `${alias ? `${alias}.` : ""}${column.name}${cast}`;
      return cast || column.name !== key || alias ? `${value} as "${key}"` : value;
    })
    .join(", ");
}

/**
 * The rows a statement returns, as `R`: a `Selected` (or `Row`) of the schema's tables, the statement
 * naming them by `selectList` (computed values under the names `R` gives them). The one place the
 * driver's untyped rows take the schema's types.
 */
export async function queryRows<R>(query: TypedQuery, text: string, params?: unknown[]): Promise<R[]> {
  const { rows } = await query(text, params);
  return rows as R[];
}

/** `select` the columns `keys` of `table` (`selectList`), then `rest` (`where …`, `order by …`). */
export function selectRows<T extends PgTable, K extends Key<T>>(
  query: TypedQuery,
  table: T,
  keys: readonly K[],
  rest = "",
  params?: unknown[],
): Promise<Selected<T, K>[]> {
  return queryRows<Selected<T, K>>(query, `select ${selectList(table, keys)} from ${getTableName(table)} ${rest}`, params);
}
