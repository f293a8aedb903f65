import { sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { isStatementTimeout } from "../db/errors";
import { screenerContracts } from "../db/schema";
import type { CompiledScreen } from "../screener/compile";

/** The largest `count` a screen reports (spec). */
export const SCREENER_COUNT_CAP = 1000;

export type ScreenerRow = typeof screenerContracts.$inferSelect;

interface ScreenResult {
  rows: ScreenerRow[];
  /** Matches up to the cap; null when counting ran out of its budget. */
  count: number | null;
}

export function screenPageQuery(db: Database, screen: CompiledScreen, limit: number, offset: number) {
  return db
    .select()
    .from(screenerContracts)
    .where(screen.where)
    .orderBy(...screen.orderBy)
    .limit(limit)
    .offset(offset);
}

export function screenCountQuery(db: Database, screen: CompiledScreen) {
  const capped = db
    .select({ one: sql`1` })
    .from(screenerContracts)
    .where(screen.where)
    .limit(SCREENER_COUNT_CAP)
    .as("capped");
  return db.select({ n: sql<number>`count(*)::int` }).from(capped);
}

/**
 * Postgres' own deadline for a screen's page: what is left of the round trip's deadline
 * (`QUERY_TIMEOUT_MS`, less a tenth for the trip itself) after the count's budget, so Postgres
 * stops the work before the client gives up on it.
 */
export function pageBudgetMs(queryTimeoutMs: number, countBudgetMs: number): number {
  return Math.max(1, Math.floor(queryTimeoutMs * 0.9) - countBudgetMs);
}

const statementTimeout = (db: Database, ms: number) => db.execute(sql`select set_config('statement_timeout', ${String(ms)}, true)`);

/**
 * A page of a screen (`limit` rows from `offset`) and its capped count in one round trip, each
 * under a statement timeout of its own: the count first (`countBudgetMs`), then the page. A
 * cancelled statement fails the whole batch; one cancelled before the page's budget could have
 * passed is the count's, and the page — which never ran — is read alone (a second trip, only on
 * that path) with a null count. A cancelled page is a `query_timeout`: it is never run twice.
 */
export async function runScreen(
  db: Database,
  screen: CompiledScreen,
  limit: number,
  offset: number,
  budgets: { countMs: number; pageMs: number },
): Promise<ScreenResult> {
  const started = Date.now();
  try {
    const [, counted, , rows] = await db.batch([
      statementTimeout(db, budgets.countMs),
      screenCountQuery(db, screen),
      statementTimeout(db, budgets.pageMs),
      screenPageQuery(db, screen, limit, offset),
    ]);
    return { rows, count: counted[0]?.n ?? 0 };
  } catch (err) {
    if (!isStatementTimeout(err) || Date.now() - started >= budgets.pageMs) throw err;
  }
  const [, rows] = await db.batch([statementTimeout(db, budgets.pageMs), screenPageQuery(db, screen, limit, offset)]);
  return { rows, count: null };
}
