import { addDays } from "../domain/calendar";

/**
 * `flow_prints` is partitioned by session (migration 0018): `flow_prints_YYYYMMDD` per session and
 * `flow_prints_other`, the default partition, for a session without one. A writer makes its
 * sessions' partitions before a bulk write (`flowPartitionsSql`), so a session's inserts touch only
 * its own indexes; a row that lands in the default partition is still a complete print.
 */

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A session (YYYY-MM-DD) checked to be one, so it and its partition's name can stand in SQL text (a DO block takes no parameters). */
function checkedSession(session: string): string {
  if (!ISO_DATE.test(session)) throw new Error(`not a session date: ${session}`);
  return session;
}

/** The partition of a session (YYYY-MM-DD). */
export function flowPartitionName(session: string): string {
  return `flow_prints_${checkedSession(session).replaceAll("-", "")}`;
}

/**
 * One statement that makes the partitions of `sessions` that do not exist yet: each created beside
 * the table, given the prints of its session already in the default partition, then attached:
 * attaching holds only the default partition for a moment, where creating it as a partition would
 * lock out every reader of the table. Serialised by an advisory lock, so two writers never race
 * to make the same one.
 */
export function flowPartitionsSql(sessions: readonly string[]): string {
  const made = [...new Set(sessions)].map((session) => {
    const name = flowPartitionName(session);
    return `if to_regclass('${name}') is null then
        create table ${name} (like flow_prints including defaults);
        with moved as (delete from flow_prints_other where session_date = '${session}' returning *) insert into ${name} select * from moved;
        alter table flow_prints attach partition ${name} for values from ('${session}') to ('${addDays(session, 1)}');
      end if;`;
  });
  return `do $$ begin
      perform pg_advisory_xact_lock(hashtext('flow_prints partitions'));
      ${made.join("\n      ")}
    end $$`;
}

/** A statement listing the session partitions before session `before` (YYYY-MM-DD), oldest first: their names sort as their sessions. */
export function expiredFlowPartitions(before: string): string {
  return `select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
           where i.inhparent = 'flow_prints'::regclass and c.relname ~ '^flow_prints_[0-9]{8}$' and c.relname < '${flowPartitionName(before)}'
           order by c.relname`;
}
