import { z } from "zod";
import { RETENTION_DAYS } from "../domain/flow-window";
import { decodeCursor, encodeCursor } from "../pagination/cursor";

/**
 * A stream cursor: how far each shard of a subscription has delivered it (the id of the last print
 * of the feed it has seen, delivered or filtered out) and when it was issued, signed as the REST
 * cursors are. Prints of one shard arrive in feed order; the positions of all of them are carried,
 * so resuming delivers exactly what came after, whatever order the shards' frames interleaved in.
 */
export interface StreamPosition {
  /** Shard name → the last feed id it delivered through. */
  positions: Record<string, number>;
  /** Epoch ms when issued. */
  issuedAt: number;
}

const SCOPE = "stream:flow";
const Payload = z.object({
  p: z.record(z.string().max(16), z.number().int().nonnegative()).refine((p) => Object.keys(p).length > 0),
  t: z.number().int(),
});

export function signStreamCursor(secrets: readonly string[], position: StreamPosition): Promise<string> {
  return encodeCursor(secrets, { p: position.positions, t: position.issuedAt }, SCOPE);
}

export type CursorCheck = { ok: true; position: StreamPosition } | { ok: false; reason: "invalid" | "expired" };

/** A cursor's positions, or why it cannot resume: forged or foreign (`invalid`), or older than the retention (`expired`). */
export async function readStreamCursor(secrets: readonly string[], text: string, now: number): Promise<CursorCheck> {
  const parsed = Payload.safeParse(await decodeCursor(secrets, text, SCOPE));
  if (!parsed.success) return { ok: false, reason: "invalid" };
  if (now - parsed.data.t > RETENTION_DAYS * 86_400_000) return { ok: false, reason: "expired" };
  return { ok: true, position: { positions: parsed.data.p, issuedAt: parsed.data.t } };
}

/** Where a shard resumes from a cursor: its own position, else the earliest the cursor holds (nothing is skipped). */
export function resumeFrom(position: StreamPosition, shard: string): number {
  return position.positions[shard] ?? Math.min(...Object.values(position.positions));
}
