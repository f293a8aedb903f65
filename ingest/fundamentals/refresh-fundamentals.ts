import { fundamentalsRefreshes, underlyings } from "../../src/db/schema";
import { newYorkInstant, todayInNewYork } from "../../src/domain/calendar";
import type { FundamentalsProvider } from "../../src/vendors/fundamentals-provider";
import type { IngestDatabase } from "../db/database";
import { columnNames, selectRows, sqlNames } from "../db/rows";
import type { IngestLog } from "../log";
import { repeatUntilAborted } from "../pipeline/periodic";
import { applyFundamentals, type RefreshReport } from "./apply-fundamentals";
import { fetchFundamentals, type Listed } from "./fetch-fundamentals";

/** The hour (ET) from which a day's refresh is due: vendors revise estimates and declare dividends overnight; done before the open. */
export const REFRESH_FROM_HOUR_ET = 6;
/** How often the follower checks; a failed refresh is tried again at the next check. */
const CHECK_EVERY_MS = 15 * 60_000;

const U = columnNames(underlyings);
const [REFRESHES, R] = sqlNames(fundamentalsRefreshes);

/** One refresh: ask the vendor about every listed stock and fund, then write what it answered (`applyFundamentals`). */
export async function refreshFundamentals(
  db: IngestDatabase,
  provider: FundamentalsProvider,
  options: { today: string; callsPerMinute: number },
): Promise<RefreshReport> {
  const listed: Listed[] = await selectRows(
    db.typedQuery,
    underlyings,
    ["symbol", "assetType"],
    `where ${U.assetType} <> 'index' order by ${U.symbol}`,
  );
  const fetched = await fetchFundamentals(provider, listed, options.today, options);
  return applyFundamentals(db, provider.name, options.today, fetched);
}

/** The ET day whose refresh is due at `now`: from 06:00 ET, once a day. */
export async function dueRefresh(db: IngestDatabase, now: Date): Promise<string | null> {
  const today = todayInNewYork(now);
  if (now < newYorkInstant(today, REFRESH_FROM_HOUR_ET)) return null;
  const { rows } = await db.typedQuery(`select 1 from ${REFRESHES} where ${R.day} = $1`, [today]);
  return rows.length > 0 ? null : today;
}

/**
 * Refreshes the calendars and company fundamentals once a day (`dueRefresh`) until `signal` is
 * aborted. A vendor that refuses the key or is down changes nothing: yesterday's values stay, the
 * log says so, and the next check tries again.
 */
export async function followFundamentals(
  db: IngestDatabase,
  provider: FundamentalsProvider,
  options: { log: IngestLog; signal: AbortSignal; callsPerMinute: number; now?: () => Date; everyMs?: number },
): Promise<void> {
  const { log, signal } = options;
  await repeatUntilAborted(
    signal,
    options.everyMs ?? CHECK_EVERY_MS,
    async () => {
      const today = await dueRefresh(db, options.now?.() ?? new Date());
      if (today === null) return;
      const started = performance.now();
      const report = await refreshFundamentals(db, provider, { today, callsPerMinute: options.callsPerMinute });
      log({ event: "fundamentals_refreshed", ...report, ms: Math.round(performance.now() - started) });
    },
    (error) =>
      log({
        event: "fundamentals_refresh_failed",
        vendor: provider.name,
        error: error instanceof Error ? error.message : String(error),
        kept: "the stored calendars and fundamentals (nothing written); tried again at the next check",
      }),
  );
}
