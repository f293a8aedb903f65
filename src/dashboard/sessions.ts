import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { randomBase62 } from "../domain/api-key";
import { SESSION_TOKEN_PREFIX } from "../access/credentials";
import { secretsEqual } from "../access/secrets";
import { hmacSha256 } from "../crypto/hmac";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { accounts, dashboardSessions, identities } from "../db/schema";

/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 60 * 60 * 1000;
/** …and at the latest this long after sign-in, whatever the activity. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often, so a burst of pages costs one write. */
const TOUCH_EVERY_MS = 60 * 1000;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 43;
const MAC_LENGTH = 32;
/** `ods_sess_` + 43 random base62 + a 32-character base62 HMAC of the random part (SESSION_SECRET). */
const TOKEN_PATTERN = new RegExp(`^${SESSION_TOKEN_PREFIX}([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${MAC_LENGTH}})$`);
/** Domain separation: this key signs nothing else, and a token's MAC is bound to its purpose and version. */
const MAC_CONTEXT = "ods-dashboard-session-v1:";

/** HMAC-SHA256 of the random part as 32 base62 characters (byte mod 62: every character still carries over 5.9 bits). */
async function macOf(secret: string, random: string): Promise<string> {
  const signature = await hmacSha256(secret, MAC_CONTEXT + random);
  return Array.from(signature.slice(0, MAC_LENGTH), (b) => BASE62[b % 62]).join("");
}

/** A new session token, signed with the first of the secrets. */
export async function newSessionToken(secrets: readonly string[]): Promise<string> {
  const random = randomBase62(RANDOM_LENGTH);
  return `${SESSION_TOKEN_PREFIX}${random}${await macOf(secrets[0] as string, random)}`;
}

/**
 * True when the token is one we issued: well-formed and signed by one of the secrets (rotation).
 * No I/O: a forged or pre-MAC token never reaches the database.
 */
export async function isIssuedSessionToken(secrets: readonly string[], token: string | undefined): Promise<boolean> {
  const match = token === undefined ? null : TOKEN_PATTERN.exec(token);
  if (!match) return false;
  for (const secret of secrets) {
    if (secretsEqual(await macOf(secret, match[1] as string), match[2] as string)) return true;
  }
  return false;
}

export interface DashboardSession {
  id: number;
  accountId: number;
  accountName: string;
  /** The email of the account's first linked identity, for display. */
  email: string | null;
  lastSeenAt: string;
}

/** Opens a session for the account; the token goes to the cookie, only its hash to the database. */
export async function openSession(
  db: Database,
  secrets: readonly string[],
  accountId: number,
): Promise<{ token: string; expiresAt: Date }> {
  const token = await newSessionToken(secrets);
  const expiresAt = new Date(Date.now() + SESSION_ABSOLUTE_MS);
  await db.insert(dashboardSessions).values({ accountId, tokenHash: await sha256Hex(token), expiresAt: expiresAt.toISOString() });
  return { token, expiresAt };
}

/** The live session of a cookie value: issued by us (MAC, before any query), known, not revoked, not past either expiry. */
export async function findSession(
  db: Database,
  secrets: readonly string[],
  token: string | undefined,
): Promise<DashboardSession | undefined> {
  if (!token || !(await isIssuedSessionToken(secrets, token))) return undefined;
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
