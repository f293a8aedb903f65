/**
 * The screener's filter operations (spec: 20 accepted): each spelling, what it means, and the
 * operations the spec names as unsupported. Read by the compiler, the API description and
 * docs/screener.md.
 */

export type Comparison = "gt" | "gte" | "lt" | "lte" | "eq";

/**
 * The 11 comparison spellings and the comparison each means. A Map, like every table looked up with
 * a client's string: a plain object would answer `constructor`, `__proto__` or `toString` from its
 * prototype.
 */
export const COMPARISONS: ReadonlyMap<string, Comparison> = new Map([
  ["gt", "gt"],
  [">", "gt"],
  ["gte", "gte"],
  [">=", "gte"],
  ["lt", "lt"],
  ["<", "lt"],
  ["lte", "lte"],
  ["<=", "lte"],
  ["eq", "eq"],
  ["=", "eq"],
  ["==", "eq"],
]);

export interface OperationDoc {
  operation: string;
  meaning: string;
}

export const SPECIAL_OPERATIONS: readonly OperationDoc[] = [
  { operation: "like", meaning: "Substring of a text field, case-insensitive; `%`, `_` and `\\` in the value match themselves." },
  { operation: "in", meaning: "The field's value is one of a list (a JSON array or a comma-separated string, at most 500 items)." },
  { operation: "exclude", meaning: "The field's value is none of a list (rows without a value are kept)." },
  {
    operation: "excludeEarnings",
    meaning:
      "Field `earnings`. No value (or `contract`): drops contracts expiring within 7 days before or after an upcoming earnings date. " +
      "Value `symbol` or `ticker`: drops every contract of an underlying reporting within the next 7 calendar days. " +
      "Neither drops a contract merely because its life spans an earnings date (filter `earnings` `eq false` for that).",
  },
  {
    operation: "cleanupLiquidity",
    meaning:
      "Drops contracts a seller cannot trade sensibly: no bid, no ask or a crossed market, no open interest, or a spread above " +
      "the value in percent of mid (default 25). The field is not read (use `liquidity`).",
  },
  {
    operation: "lastTradeToday",
    meaning:
      "Value true or omitted: the contract traded today (America/New_York); false: it did not. The field is not read (use `lastTradeDate`).",
  },
  {
    operation: "lastTradeRecent",
    meaning: "The contract traded within the last `value` days (integer 1-30, default 3). The field is not read (use `lastTradeDate`).",
  },
  {
    operation: "strikeFilter",
    meaning: "Keeps the `value` strikes nearest spot (integer 1-100) of each expiration and side. Field `strikeFilter` or `strike`.",
  },
  {
    operation: "sort",
    meaning:
      "Orders by the field; value `asc`, `ascending`, `desc`, `descending` (empty or omitted: `asc`). Several sort rules apply in " +
      "the order given; rows without a value come last; ties end on the option key.",
  },
];

/** Spelled by clients, refused by the spec. */
export const UNSUPPORTED_OPERATIONS: readonly string[] = ["neq", "between"];

/** Sort directions as clients spell them (lower-cased; empty means ascending). */
export const SORT_DIRECTIONS: ReadonlyMap<string, "asc" | "desc"> = new Map([
  ["", "asc"],
  ["asc", "asc"],
  ["ascending", "asc"],
  ["desc", "desc"],
  ["descending", "desc"],
]);

/** Every accepted operation spelling (20). */
export const ACCEPTED_OPERATIONS: readonly string[] = [...COMPARISONS.keys(), ...SPECIAL_OPERATIONS.map((o) => o.operation)];
