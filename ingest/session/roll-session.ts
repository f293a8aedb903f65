import { equityDaily, equityQuotes, ivDaily, optionDaily, optionQuotes, sessionRolls } from "../../src/db/schema";
import { addDays, previousSessions, sessionOnOrAfter } from "../../src/domain/calendar";
import { updateOnConflict } from "../db/bulk-insert";
import type { IngestDatabase, TypedQuery } from "../db/database";
import { queryRows, selectList, selectRows, type Selected, sqlNames } from "../db/rows";
import { bumpScopes, contractScopes } from "../db/versions";
import { markSql } from "../quotes/mark";
import { BASELINE_SESSIONS, writeBaselines } from "../screener/baselines";

/** Sessions of contract history kept: the baselines' 30. */
const OPTION_HISTORY_SESSIONS = BASELINE_SESSIONS;
/** Days of underlying history kept: the 52-week range and the 200-session average need a year and some. */
const UNDERLYING_HISTORY_DAYS = 400;

const [OPTION_QUOTES, Q] = sqlNames(optionQuotes);
const [OPTION_DAILY, D] = sqlNames(optionDaily);
const [EQUITY_QUOTES, E] = sqlNames(equityQuotes);
const [EQUITY_DAILY, B] = sqlNames(equityDaily);
const [IV_DAILY, I] = sqlNames(ivDaily);
const [SESSION_ROLLS, R] = sqlNames(sessionRolls);

/** `insert into table (columns)` and its upsert by `key`: every other column from the new row. */
const upsert = (table: string, columns: string[], key: string[]) => ({
  into: `insert into ${table} (${columns.join(", ")})`,
  onConflict: updateOnConflict(key)(columns),
});

/** The session's closing values into the history tables: the contracts' day, the underlyings' bar. */
async function appendHistory(query: TypedQuery, session: string): Promise<void> {
  // Volume counts only the session's trades (the quotes writer starts a new day's at 0).
  const day = upsert(OPTION_DAILY, [D.optionSymbol, D.date, D.volume, D.openInterest, D.mark, D.iv], [D.optionSymbol, D.date]);
  await query(
    `${day.into}
     select q.${Q.optionSymbol}, $1::date,
       case when (q.${Q.lastTradeAt} at time zone 'America/New_York')::date = $1::date then coalesce(q.${Q.volume}, 0) else 0 end,
       coalesce(q.${Q.openInterest}, 0),
       ${markSql("q")},
       q.${Q.iv}
     from ${OPTION_QUOTES} q where q.${Q.expiration} >= $1::date
     ${day.onConflict}`,
    [session],
  );
  const bar = upsert(EQUITY_DAILY, [B.symbol, B.date, B.open, B.high, B.low, B.close, B.volume], [B.symbol, B.date]);
  await query(
    `${bar.into}
     select e.${E.symbol}, $1::date, e.${E.open}, e.${E.high}, e.${E.low}, e.${E.price}, coalesce(e.${E.volume}, 0)
     from ${EQUITY_QUOTES} e where e.${E.sessionDate} = $1::date
     ${bar.onConflict}`,
    [session],
  );
  await query(`delete from ${OPTION_DAILY} where ${D.date} < $1::date`, [previousSessions(session, OPTION_HISTORY_SESSIONS)[0]]);
  await query(`delete from ${EQUITY_DAILY} where ${B.date} < $1::date`, [addDays(session, -UNDERLYING_HISTORY_DAYS)]);
  await query(`delete from ${IV_DAILY} where ${I.date} < $1::date`, [addDays(session, -UNDERLYING_HISTORY_DAYS)]);
}

/** Contracts that expired with the session leave the market, their scopes' caches with them. */
async function retireExpired(query: TypedQuery, session: string): Promise<void> {
  const rows = await queryRows<Selected<typeof optionQuotes, "underlying" | "root">>(
    query,
    `delete from ${OPTION_QUOTES} where ${Q.expiration} <= $1::date returning ${selectList(optionQuotes, ["underlying", "root"])}`,
    [session],
  );
  await bumpScopes(query, { scopes: contractScopes(rows), asOf: new Date() });
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
  const rows = await selectRows(query, sessionRolls, ["step"], `where ${R.sessionDate} = $1::date`, [session]);
  return new Set(rows.map((r) => r.step));
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
    await db.typedQuery(`insert into ${SESSION_ROLLS} (${R.sessionDate}, ${R.step}) values ($1::date, $2) on conflict do nothing`, [
      session,
      step.name,
    ]);
    ran.push(step.name);
    await afterStep?.(step.name);
  }
  return ran;
}
