import { and, eq, gt, lt } from "drizzle-orm";
import { randomBase62 } from "../domain/api-key";
import { sha256Hex } from "../crypto/sha256";
import type { Database } from "../db/client";
import { loginAttempts } from "../db/schema";
import type { PendingSignIn } from "./oidc";

/** How long the user has to finish signing in at the provider. */
export const LOGIN_ATTEMPT_MS = 10 * 60 * 1000;

/** Stores a sign-in under way; returns the id for the browser's login cookie (only its hash is stored). */
export async function saveLoginAttempt(db: Database, pending: PendingSignIn): Promise<string> {
  const id = randomBase62(43);
  const now = Date.now();
  await db.batch([
    // Attempts never finished are swept as new ones start.
    db.delete(loginAttempts).where(lt(loginAttempts.expiresAt, new Date(now).toISOString())),
    db.insert(loginAttempts).values({ idHash: await sha256Hex(id), ...pending, expiresAt: new Date(now + LOGIN_ATTEMPT_MS).toISOString() }),
  ]);
  return id;
}

/** Takes the attempt of a login cookie out of the store: a second callback with it finds nothing. */
export async function takeLoginAttempt(db: Database, id: string | undefined): Promise<PendingSignIn | undefined> {
  if (!id || !/^[0-9A-Za-z]{43}$/.test(id)) return undefined;
  const [row] = await db
    .delete(loginAttempts)
    .where(and(eq(loginAttempts.idHash, await sha256Hex(id)), gt(loginAttempts.expiresAt, new Date().toISOString())))
    .returning();
  return row ? { state: row.state, nonce: row.nonce, codeVerifier: row.codeVerifier } : undefined;
}
