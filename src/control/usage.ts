import { and, asc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { usageDaily } from "../db/schema";

/**
 * Writes an account's per-ET-day request counts (absolute counts, not increments): a retried or
 * reordered write never counts twice and never lowers a day.
 */
export async function recordUsage(db: Database, accountId: number, days: [date: string, requests: number][]): Promise<void> {
  if (days.length === 0) return;
  const rows = sql.join(
    days.map(([date, requests]) => sql`(${accountId}, ${date}::date, ${requests})`),
    sql`, `,
  );
  await db.execute(sql`
    insert into usage_daily (account_id, date, requests) values ${rows}
    on conflict (account_id, date) do update set requests = greatest(usage_daily.requests, excluded.requests)`);
}

/** The account's recorded days from `since` (an ET date) on, oldest first. */
export async function usageSince(db: Database, accountId: number, since: string): Promise<{ date: string; requests: number }[]> {
  return db
    .select({ date: usageDaily.date, requests: usageDaily.requests })
    .from(usageDaily)
    .where(and(eq(usageDaily.accountId, accountId), gte(usageDaily.date, since)))
    .orderBy(asc(usageDaily.date));
}
