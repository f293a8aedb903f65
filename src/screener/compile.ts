import { and, sql, type SQL } from "drizzle-orm";
import { addDays, isCalendarDate, newYorkInstant, todayInNewYork } from "../domain/calendar";
import { TICKER } from "../domain/symbols";
import { screenerContracts as t } from "../db/schema";
import { DECIMAL_TEXT } from "../domain/decimal-text";
import { screenerField, type ScreenerField } from "./fields";
import { COMPARISONS, SORT_DIRECTIONS, UNSUPPORTED_OPERATIONS, type Comparison } from "./operations";

/** One filter rule as the client sent it (already known to be an object with a string field and operation). */
export interface FilterRule {
  field: string;
  operation: string;
  value?: unknown;
}

/** What a screen compiles to: its conditions and its order (option key last). */
export interface CompiledScreen {
  where: SQL | undefined;
  orderBy: SQL[];
}

interface ScreenClock {
  /** Today in America/New_York, YYYY-MM-DD. */
  today: string;
  /** The request's instant. */
  now: Date;
  /** Midnight America/New_York of today, as an instant. */
  startOfToday: Date;
}

const MAX_LIST_ITEMS = 500;
const MAX_TEXT_LENGTH = 200;
const DEFAULT_CLEANUP_SPREAD_PCT = 25;
const DEFAULT_RECENT_DAYS = 3;

/** A JSON number or a plain decimal string; NaN for anything else. */
const numeric = (value: unknown) =>
  typeof value === "number" ? value : typeof value === "string" && DECIMAL_TEXT.test(value) ? Number(value) : NaN;
const omitted = (value: unknown) => value === undefined || value === null || value === "";

/** A rule the screener cannot apply, with what is wrong with it in the client's terms (the route answers 400 `invalid_body`). */
export class ScreenRuleError extends Error {
  override readonly name = "ScreenRuleError";
}

const bad = (message: string) => new ScreenRuleError(message);
const show = (value: unknown) => JSON.stringify(value)?.slice(0, 40) ?? String(value);

/** A string the client sent, lower-cased; anything else (numbers, lists, objects) is not a keyword. */
const keyword = (value: unknown) => (typeof value === "string" ? value.toLowerCase() : undefined);

/** Instants a timestamp filter may name: years 0001-9999, as PostgreSQL and `YYYY-MM-DD` can write them. */
const isTimestampInRange = (iso: string) => isCalendarDate(iso.slice(0, 10));

const EXPECTED: Record<ScreenerField["type"], string> = {
  number: "a number",
  integer: "an integer",
  text: `a string of 1-${MAX_TEXT_LENGTH} characters without U+0000`,
  date: "a date YYYY-MM-DD of the years 0001-9999",
  timestamp: "an ISO 8601 timestamp or a date YYYY-MM-DD, in the years 0001-9999",
  boolean: "true or false",
  set: "one of the listed values",
};

function expected(field: ScreenerField): string {
  if (field.values) return `one of ${field.values.join(", ")}`;
  if (field.upperCase && field.type === "set") return "a ticker";
  if (field.range) return `an integer from ${field.range[0]} to ${field.range[1]}${field.daysUntil ? " (days from today)" : ""}`;
  return EXPECTED[field.type];
}

/** One value of a field's type, as the compiler binds it (a parameter, never SQL text). */
function scalar(field: ScreenerField, name: string, value: unknown): string | number | boolean {
  const fail = () => bad(`Filter field '${name}' expects ${expected(field)}, got ${show(value)}.`);
  switch (field.type) {
    case "number": {
      const n = numeric(value);
      if (!Number.isFinite(n) || Math.abs(n) > 1e15) throw fail();
      return n;
    }
    case "integer": {
      // Bound to the column's range: PostgreSQL refuses the whole statement for a parameter outside it.
      const n = numeric(value);
      const [min, max] = field.range ?? [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      if (!Number.isInteger(n) || n < min || n > max) throw fail();
      return n;
    }
    case "date":
      if (typeof value !== "string" || !isCalendarDate(value)) throw fail();
      return value;
    case "timestamp": {
      if (typeof value !== "string" || value.length > 40) throw fail();
      if (isCalendarDate(value)) return `${value}T00:00:00.000Z`;
      const ms = Date.parse(value);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms)) throw fail();
      // An offset can carry 9999-12-31T23:00-05:00 into year 10000, and 0000-… parses: both outside PostgreSQL's range as written.
      const iso = new Date(ms).toISOString();
      if (!isTimestampInRange(iso)) throw fail();
      return iso;
    }
    case "boolean":
      if (value === true || value === "true") return true;
      if (value === false || value === "false") return false;
      throw fail();
    case "text":
      // PostgreSQL text cannot hold U+0000: such a parameter fails the statement.
      if (typeof value !== "string" || value.length === 0 || value.length > MAX_TEXT_LENGTH || value.includes("\u0000")) throw fail();
      return field.upperCase ? value.toUpperCase() : value;
    case "set": {
      if (typeof value !== "string") throw fail();
      if (field.upperCase) {
        const ticker = value.trim().toUpperCase();
        if (!TICKER.test(ticker)) throw fail();
        return ticker;
      }
      const v = value.trim().toLowerCase();
      if (!field.values?.includes(v)) throw fail();
      return v;
    }
  }
}

/** A list for `in`/`exclude`: a JSON array or a comma-separated string. */
function list(field: ScreenerField, name: string, value: unknown): (string | number | boolean)[] {
  const items = Array.isArray(value) ? value : typeof value === "string" ? value.split(",").map((s) => s.trim()) : undefined;
  if (!items || items.length === 0 || items.length > MAX_LIST_ITEMS) {
    throw bad(`Filter field '${name}' with 'in'/'exclude' expects a list (array or comma-separated string) of 1-${MAX_LIST_ITEMS} values.`);
  }
  return [...new Set(items.map((item) => scalar(field, name, item)))];
}

/** The SQL a field's value is compared with: dates for "days from today" fields, lower case for free text. */
function operand(field: ScreenerField, v: string | number | boolean, clock: ScreenClock): unknown {
  if (field.daysUntil) return addDays(clock.today, v as number);
  if (field.type === "text" && !field.upperCase) return (v as string).toLowerCase();
  return v;
}

function subject(field: ScreenerField): SQL {
  if (field.type === "text" && !field.upperCase) return sql`lower(${field.expr})`;
  return sql`${field.expr}`;
}

const SQL_COMPARISON: Record<Comparison, SQL> = {
  gt: sql.raw(">"),
  gte: sql.raw(">="),
  lt: sql.raw("<"),
  lte: sql.raw("<="),
  eq: sql.raw("="),
};

function cast(field: ScreenerField): SQL {
  if (field.daysUntil || field.type === "date") return sql.raw("::date");
  if (field.type === "timestamp") return sql.raw("::timestamptz");
  return sql.raw("");
}

/** `\`, `%` and `_` stand for themselves in a `like` value. */
function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const ORDERED_TYPES = new Set(["number", "integer", "date", "timestamp"]);

function comparison(field: ScreenerField, name: string, op: Comparison, value: unknown, clock: ScreenClock): SQL {
  if (op !== "eq" && !ORDERED_TYPES.has(field.type)) {
    throw bad(`Filter operation '${op}' does not apply to the ${field.type} field '${name}'; use eq, in or exclude.`);
  }
  const v = operand(field, scalar(field, name, value), clock);
  return sql`${subject(field)} ${SQL_COMPARISON[op]} ${v}${cast(field)}`;
}

function membership(field: ScreenerField, name: string, op: "in" | "exclude", value: unknown, clock: ScreenClock): SQL {
  if (field.type === "boolean") throw bad(`Filter operation '${op}' does not apply to the boolean field '${name}'; use eq.`);
  const values = list(field, name, value).map((v) => sql`${operand(field, v, clock)}${cast(field)}`);
  const inList = sql`${subject(field)} in (${sql.join(values, sql`, `)})`;
  return op === "in" ? inList : sql`(${field.expr} is null or not ${inList})`;
}

function earningsExclusion(name: string, value: unknown, clock: ScreenClock): SQL {
  if (name !== "earnings" && name !== "earningsDate") {
    throw bad(`Filter operation 'excludeEarnings' applies to the field 'earnings', not '${name}'.`);
  }
  const mode = omitted(value) ? "contract" : keyword(value);
  if (mode === "contract") return sql`not ${t.expirationNearEarnings}`;
  if (mode === "symbol" || mode === "ticker") {
    return sql`(${t.earningsDate} is null or ${t.earningsDate} not between ${clock.today}::date and ${addDays(clock.today, 7)}::date)`;
  }
  throw bad(`Filter operation 'excludeEarnings' takes no value (contract mode) or 'symbol'/'ticker', got ${show(value)}.`);
}

function boundedInt(op: string, value: unknown, fallback: number, min: number, max: number): number {
  if (omitted(value)) return fallback;
  const n = numeric(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw bad(`Filter operation '${op}' expects an integer ${min}-${max}, got ${show(value)}.`);
  return n;
}

/** A rule's condition, or its sort term. */
function compileRule(rule: FilterRule, clock: ScreenClock): { where?: SQL; order?: SQL } {
  const field = screenerField(rule.field);
  if (!field) throw bad(`Unknown filter field '${rule.field.slice(0, 60)}'; docs/screener.md lists the accepted fields.`);
  const name = rule.field;
  const op = rule.operation;
  const comparisonOp = COMPARISONS.get(op);
  if (comparisonOp) return { where: comparison(field, name, comparisonOp, rule.value, clock) };
  switch (op) {
    case "like": {
      if (field.type !== "text") throw bad(`Filter operation 'like' applies to text fields, not the ${field.type} field '${name}'.`);
      const v = scalar(field, name, rule.value) as string;
      return { where: sql`${field.expr} ilike ${`%${escapeLike(v)}%`} escape '\\'` };
    }
    case "in":
    case "exclude":
      return { where: membership(field, name, op, rule.value, clock) };
    case "excludeEarnings":
      return { where: earningsExclusion(name, rule.value, clock) };
    case "cleanupLiquidity": {
      const maxSpread = omitted(rule.value) ? DEFAULT_CLEANUP_SPREAD_PCT : numeric(rule.value);
      if (!Number.isFinite(maxSpread) || maxSpread < 0) {
        throw bad(`Filter operation 'cleanupLiquidity' expects a maximum spread in percent (a number ≥ 0), got ${show(rule.value)}.`);
      }
      return {
        where: sql`(${t.bidPrice} > 0 and ${t.askPrice} >= ${t.bidPrice} and ${t.openInterest} > 0 and ${t.spreadPct} <= ${maxSpread})`,
      };
    }
    case "lastTradeToday": {
      const today = omitted(rule.value) ? true : rule.value;
      if (today !== true && today !== false && today !== "true" && today !== "false") {
        throw bad(`Filter operation 'lastTradeToday' expects true, false or no value, got ${show(rule.value)}.`);
      }
      const traded = sql`${t.lastTradeDate} >= ${clock.startOfToday.toISOString()}::timestamptz`;
      return { where: today === true || today === "true" ? traded : sql`(${t.lastTradeDate} is null or not ${traded})` };
    }
    case "lastTradeRecent": {
      const days = boundedInt(op, rule.value, DEFAULT_RECENT_DAYS, 1, 30);
      const since = new Date(clock.now.getTime() - days * 86_400_000).toISOString();
      return { where: sql`${t.lastTradeDate} >= ${since}::timestamptz` };
    }
    case "strikeFilter": {
      if (name !== "strikeFilter" && name !== "strike")
        throw bad(`Filter operation 'strikeFilter' applies to the field 'strikeFilter' or 'strike', not '${name}'.`);
      return { where: sql`${t.strikeRank} <= ${boundedInt(op, rule.value, 0, 1, 100)}` };
    }
    case "sort": {
      const spelling = omitted(rule.value) ? "" : keyword(rule.value);
      const direction = spelling === undefined ? undefined : SORT_DIRECTIONS.get(spelling);
      if (!direction) throw bad(`Sort direction for '${name}' must be asc, desc, ascending or descending, got ${show(rule.value)}.`);
      return { order: sql`${field.expr} ${sql.raw(direction)} nulls last` };
    }
  }
  if (UNSUPPORTED_OPERATIONS.includes(op)) {
    throw bad(`Filter operation '${op}' is not supported; combine gt/gte/lt/lte rules (for 'between') or use exclude (for 'neq').`);
  }
  throw bad(`Unknown filter operation '${op.slice(0, 30)}' for field '${name}'; docs/screener.md lists the accepted operations.`);
}

/** The one underlying a screen is restricted to, if the rules pin exactly one. */
function pinnedSymbol(rules: readonly FilterRule[]): string | undefined {
  const pinned = new Set<string>();
  for (const r of rules) {
    if (r.field !== "symbol" && r.field !== "symbols") continue;
    if (COMPARISONS.get(r.operation) === "eq" && typeof r.value === "string") pinned.add(r.value.trim().toUpperCase());
    if (r.operation === "in") {
      const items = Array.isArray(r.value) ? r.value : typeof r.value === "string" ? r.value.split(",") : [];
      if (items.length === 1 && typeof items[0] === "string") pinned.add(items[0].trim().toUpperCase());
    }
  }
  return pinned.size === 1 ? [...pinned][0] : undefined;
}

/**
 * Compiles filter rules into one parameterised condition and an order: the client's sort rules in
 * turn, else option key (or, with one underlying pinned, expiration, strike); the option key always
 * ends the order, so pages are stable.
 */
export function compileScreen(rules: readonly FilterRule[], now: Date): CompiledScreen {
  const today = todayInNewYork(now);
  const clock: ScreenClock = { now, today, startOfToday: newYorkInstant(today, 0) };
  const where: SQL[] = [];
  const order: SQL[] = [];
  for (const rule of rules) {
    const compiled = compileRule(rule, clock);
    if (compiled.where) where.push(compiled.where);
    if (compiled.order) order.push(compiled.order);
  }
  const pinned = pinnedSymbol(rules);
  const defaults = pinned !== undefined ? [sql`${t.expiration} asc`, sql`${t.strike} asc`] : [];
  return {
    where: and(...where),
    orderBy: [...(order.length ? order : defaults), sql`${t.optionKey} asc`],
  };
}
