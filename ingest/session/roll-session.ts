import { addDays, previousSessions, sessionOnOrAfter } from "../../src/domain/calendar";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { bumpScopes, contractScopes } from "../db/versions";
import { markSql } from "../quotes/mark";
import { BASELINE_SESSIONS, writeBaselines } from "../screener/baselines";

/** Sessions of contract history kept: the baselines' 30. */
const OPTION_HISTORY_SESSIONS = BASELINE_SESSIONS;
/** Days of underlying history kept: the 52-week range and the 200-session average need a year and some. */
const UNDERLYING_HISTORY_DAYS = 400;

/** The session's closing values into the history tables: the contracts' day, the underlyings' bar. */
async function appendHistory(query: TypedQuery, session: string): Promise<void> {
  // Volume counts only the session's trades (the quotes writer starts a new day's at 0).
  await query(
    `insert into option_daily (option_symbol, date, volume, open_interest, mark, iv)
     select q.option_symbol, $1::date,
       case when (q.last_trade_at at time zone 'America/New_York')::date = $1::date then coalesce(q.volume, 0) else 0 end,
       coalesce(q.open_interest, 0),
       ${markSql("q")},
       q.iv
     from option_quotes q where q.expiration >= $1::date
     on conflict (option_symbol, date) do update set volume = excluded.volume, open_interest = excluded.open_interest,
       mark = excluded.mark, iv = excluded.iv`,
    [session],
  );
  await query(
    `insert into equity_daily (symbol, date, open, high, low, close, volume)
     select e.symbol, $1::date, e.open, e.high, e.low, e.price, coalesce(e.volume, 0)
     from equity_quotes e where e.session_date = $1::date
     on conflict (symbol, date) do update set open = excluded.open, high = excluded.high, low = excluded.low,
       close = excluded.close, volume = excluded.volume`,
    [session],
  );
  await query(`delete from option_daily where date < $1::date`, [previousSessions(session, OPTION_HISTORY_SESSIONS)[0]]);
  await query(`delete from equity_daily where date < $1::date`, [addDays(session, -UNDERLYING_HISTORY_DAYS)]);
  await query(`delete from iv_daily where date < $1::date`, [addDays(session, -UNDERLYING_HISTORY_DAYS)]);
}

/** Contracts that expired with the session leave the market, their scopes' caches with them. */
async function retireExpired(query: TypedQuery, session: string): Promise<void> {
  const { rows } = await query(`delete from option_quotes where expiration <= $1::date returning underlying, root`, [session]);
  const scopes = contractScopes(rows.map((r) => ({ underlying: r.underlying as string, root: r.root as string })));
  await bumpScopes(query, { scopes, asOf: new Date() });
}

/**
 * The roll's steps, in order, each one transaction that records itself done: a rerun (after a
 * crash at any point) skips what committed and redoes the rest, and every step gives the same
 * tables when run again, so the roll is idempotent as a whole.
 */
const STEPS: readonly { name: string; run: (db: IngestDatabase, session: string, next: string) => Promise<void> }[] = [
  { name: "history", run: (db, session) => db.typedTransaction((query) => appendHistory(query, session)) },
  { name: "retire", run: (db, session) => db.typedTransaction((query) => retireExpired(query, session)) },
  // The next session's baselines (the 30 sessions before it, this one included) for the contracts that go on, beside
  // the current ones the screener serves until it opens.
  { name: "baselines", run: (db, _session, next) => writeBaselines(db, next) },
];

async function doneSteps(query: TypedQuery, session: string): Promise<Set<string>> {
  const { rows } = await query(`select step from session_rolls where session_date = $1::date`, [session]);
  return new Set(rows.map((r) => r.step as string));
}

/** Whether `session` has been rolled whole. */
export async function isRolled(query: TypedQuery, session: string): Promise<boolean> {
  const done = await doneSteps(query, session);
  return STEPS.every((s) => done.has(s.name));
}

/** The roll under way on each database. */
const underway = new WeakMap<IngestDatabase, Promise<string[]>>();

/**
 * Rolls a session that has ended: appends it to the history (`option_daily`: each listed
 * contract's volume, open interest, mark and IV; `equity_daily`: each underlying's bar from the
 * spots written in it; `iv_daily` already holds its 30-day IV, rewritten every minute) and trims
 * the history to what the baselines and the 52-week figures read; retires the contracts that
 * expired with it; writes the next session's 30-session baselines. The screener's rows take the
 * new baselines when the next session's quotes rebuild them. `afterStep` (tests) runs after each
 * step commits. Returns the steps run (those already done are skipped).
 */
export async function rollSession(db: IngestDatabase, session: string, afterStep?: (step: string) => Promise<void>): Promise<string[]> {
  // One roll at a time on a database (the 16:30 follower and the ingestor's session barrier may both
  // start one): a second waits for the first, then skips the steps it recorded.
  for (let running = underway.get(db); running; running = underway.get(db)) await running.catch(() => undefined);
  const run = rollSteps(db, session, afterStep);
  underway.set(db, run);
  try {
    return await run;
  } finally {
    if (underway.get(db) === run) underway.delete(db);
  }
}

async function rollSteps(db: IngestDatabase, session: string, afterStep?: (step: string) => Promise<void>): Promise<string[]> {
  const next = sessionOnOrAfter(addDays(session, 1));
  const done = await doneSteps(db.typedQuery, session);
  const ran: string[] = [];
  for (const step of STEPS) {
    if (done.has(step.name)) continue;
    await step.run(db, session, next);
    await db.typedQuery(`insert into session_rolls (session_date, step) values ($1::date, $2) on conflict do nothing`, [
      session,
      step.name,
    ]);
    ran.push(step.name);
    await afterStep?.(step.name);
  }
  return ran;
}
