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
 * A page of a screen (`limit` rows from `offset`) and its capped count in one round trip: the
 * count runs last under a statement timeout of `countBudgetMs`. Past it Postgres cancels the
 * count, which fails the whole batch; the page alone is then read again (a second trip, only on
 * that path) and the count is null.
 */
export async function runScreen(
  db: Database,
  screen: CompiledScreen,
  limit: number,
  offset: number,
  countBudgetMs: number,
): Promise<ScreenResult> {
  try {
    const [rows, , counted] = await db.batch([
      screenPageQuery(db, screen, limit, offset),
      db.execute(sql`select set_config('statement_timeout', ${String(countBudgetMs)}, true)`),
      screenCountQuery(db, screen),
    ]);
    return { rows, count: counted[0]?.n ?? 0 };
  } catch (err) {
    if (!isStatementTimeout(err)) throw err;
    return { rows: await screenPageQuery(db, screen, limit, offset), count: null };
  }
}
