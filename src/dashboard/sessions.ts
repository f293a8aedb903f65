import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { randomBase62 } from "../access/api-key";
import { SESSION_TOKEN_PREFIX } from "../access/credentials";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { accounts, dashboardSessions, identities } from "../db/schema";

/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
/** …and at the latest this long after sign-in, whatever the activity. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often, so a burst of pages costs one write. */
const TOUCH_EVERY_MS = 60 * 1000;

const TOKEN_PATTERN = /^ods_sess_[0-9A-Za-z]{43}$/;

export interface DashboardSession {
  id: number;
  accountId: number;
  accountName: string;
  /** The email of the account's first linked identity, for display. */
  email: string | null;
  lastSeenAt: string;
}

/** Opens a session for the account; the token goes to the cookie, only its hash to the database. */
export async function openSession(db: Database, accountId: number): Promise<{ token: string; expiresAt: Date }> {
  const token = `${SESSION_TOKEN_PREFIX}${randomBase62(43)}`;
  const expiresAt = new Date(Date.now() + SESSION_ABSOLUTE_MS);
  await db.insert(dashboardSessions).values({ accountId, tokenHash: await sha256Hex(token), expiresAt: expiresAt.toISOString() });
  return { token, expiresAt };
}

/** The live session of a cookie value: well-formed, known, not revoked, not past either expiry. */
export async function findSession(db: Database, token: string | undefined): Promise<DashboardSession | undefined> {
  if (!token || !TOKEN_PATTERN.test(token)) return undefined;
  const now = Date.now();
  const [row] = await db
    .select({
      id: dashboardSessions.id,
      accountId: dashboardSessions.accountId,
      accountName: accounts.name,
      email: sql<
        string | null
      >`(select ${identities.email} from ${identities} where ${identities.accountId} = ${accounts.id} order by ${identities.id} limit 1)`,
      lastSeenAt: dashboardSessions.lastSeenAt,
    })
    .from(dashboardSessions)
    .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
    .where(
      and(
        eq(dashboardSessions.tokenHash, await sha256Hex(token)),
        isNull(dashboardSessions.revokedAt),
        gt(dashboardSessions.expiresAt, new Date(now).toISOString()),
        gt(dashboardSessions.lastSeenAt, new Date(now - SESSION_IDLE_MS).toISOString()),
      ),
    );
  return row;
}

/** Moves the idle expiry on, unless it was moved within the last minute. */
export async function touchSession(db: Database, session: DashboardSession): Promise<void> {
  if (Date.now() - Date.parse(session.lastSeenAt) < TOUCH_EVERY_MS) return;
  await db
    .update(dashboardSessions)
    .set({ lastSeenAt: sql`now()` })
    .where(eq(dashboardSessions.id, session.id));
}

export async function revokeSession(db: Database, sessionId: number): Promise<void> {
  await db
    .update(dashboardSessions)
    .set({ revokedAt: sql`now()` })
    .where(eq(dashboardSessions.id, sessionId));
}
