import { feedPositions } from "../../src/db/schema";
import type { FeedPosition } from "../events";
import type { CopyRows, IngestDatabase, TypedQuery } from "./database";
import { arrayParams } from "./bulk-insert";
import { columnNames, selectRows, tableName } from "./rows";
import { bumpScopes, type Touched } from "./versions";

export type FeedSchema = FeedPosition["schema"];
/** Per schema, the newest receive time (ns) whose events are all stored. */
export type Positions = ReadonlyMap<FeedSchema, bigint>;

const FEED_POSITIONS = tableName(feedPositions);
const P = columnNames(feedPositions);

/** The stored positions of one feed (a schema never written has none: it starts from the feed's beginning). */
export async function readPositions(query: TypedQuery, feed: string): Promise<Positions> {
  const rows = await selectRows(query, feedPositions, ["schema", "tsRecv"], `where ${P.feed} = $1`, [feed]);
  return new Map(rows.map((r) => [r.schema as FeedSchema, BigInt(r.tsRecv)]));
}

/**
 * Moves the feed's positions forward, in the caller's transaction (the one that writes the events
 * they cover). Never backward: a position older than the stored one leaves it.
 */
export async function advancePositions(query: TypedQuery, feed: string, positions: Positions): Promise<void> {
  if (positions.size === 0) return;
  const schemas = [...positions.keys()];
  await query(
    `insert into ${FEED_POSITIONS} (${P.feed}, ${P.schema}, ${P.tsRecv})
     select $1, s, t from unnest(${arrayParams(feedPositions, ["schema", "tsRecv"], 2)}) as p(s, t)
     on conflict (${P.feed}, ${P.schema}) do update
       set ${P.tsRecv} = greatest(${FEED_POSITIONS}.${P.tsRecv}, excluded.${P.tsRecv}), ${P.updatedAt} = now()`,
    [feed, schemas, schemas.map((s) => String(positions.get(s)))],
  );
}

/** Whether an event is past the stored position of its schema, i.e. not yet written. */
export function isPending(positions: Positions, position: FeedPosition): boolean {
  const stored = positions.get(position.schema);
  return stored === undefined || position.tsRecv > stored;
}

/** The newest position of each schema among events (those of one batch). */
export function batchPositions(events: readonly { position: FeedPosition }[]): Map<FeedSchema, bigint> {
  const out = new Map<FeedSchema, bigint>();
  for (const { position } of events) {
    const seen = out.get(position.schema);
    if (seen === undefined || position.tsRecv > seen) out.set(position.schema, position.tsRecv);
  }
  return out;
}

/**
 * The writers' one shape: in one transaction, `write` the events past the stored positions (a
 * replay's earlier events are skipped), move the positions to the batch's newest receive times —
 * no further than `through` when the newest may not be complete (more of it may follow, and must
 * not then be taken for written) — and give the scopes `write` touched a new version. After a
 * crash all are stored or none; writing an event again is harmless (every writer upserts by key).
 */
export async function writeAtPositions<E extends { position: FeedPosition }>(
  db: IngestDatabase,
  feed: string,
  events: readonly E[],
  write: (query: TypedQuery, pending: E[], copy: CopyRows) => Promise<Touched | void>,
  through?: bigint,
): Promise<{ written: number; skipped: number }> {
  return db.typedTransaction(async (query, copy) => {
    const stored = await readPositions(query, feed);
    const pending = events.filter((e) => isPending(stored, e.position));
    const touched = pending.length > 0 ? await write(query, pending, copy) : undefined;
    const complete = through === undefined ? events : events.filter((e) => e.position.tsRecv <= through);
    await advancePositions(query, feed, batchPositions(complete));
    if (touched) await bumpScopes(query, touched);
    return { written: pending.length, skipped: events.length - pending.length };
  });
}
