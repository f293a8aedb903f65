import { sha256Hex } from "../../src/crypto/sha256";
import { newSessionToken } from "../../src/dashboard/sessions";
import type { CreateAccountInput } from "../../src/routes/admin/contracts";
import { admin, bodyOf, newAccount, type TestAccount } from "./accounts";
import { controlSql } from "./market-db";
import { call, testEnv } from "./worker";

/** The session cookie's name on https (a `__Host-` cookie; the bare name is only for plain-http loopback). */
export const SESSION_COOKIE = "__Host-ods_session";

/** The Worker's session keys (SESSION_SECRET): the first signs. */
export const sessionSecrets = () => testEnv.SESSION_SECRET.split(",").map((s) => s.trim());

/** The origin the Worker under test sees (test/support/worker.ts): forms from the dashboard carry it. */
export const ORIGIN = "https://api.test";

export interface SignedIn extends TestAccount {
  id: number;
  cookie: string;
}

/**
 * An account with a dashboard session, arranged in the database as a completed sign-in leaves it
 * (the sign-in itself is tested through a real provider in test/dashboard/dashboard.browser.test.ts).
 */
export async function signedInAccount(
  options: { status?: CreateAccountInput["status"]; keys?: number; lastSeenAgoMs?: number; expiresInMs?: number; revoked?: boolean } = {},
): Promise<SignedIn> {
  const account = await newAccount({ status: options.status ?? "none", keys: options.keys ?? 0 });
  const body = bodyOf(await admin.showAccount(account.name));
  const token = await newSessionToken(sessionSecrets());
  const now = Date.now();
  await controlSql().query(
    "insert into dashboard_sessions (account_id, token_hash, last_seen_at, expires_at, revoked_at) values ($1, $2, $3, $4, $5)",
    [
      body.id,
      await sha256Hex(token),
      new Date(now - (options.lastSeenAgoMs ?? 0)).toISOString(),
      new Date(now + (options.expiresInMs ?? 3_600_000)).toISOString(),
      options.revoked ? new Date(now).toISOString() : null,
    ],
  );
  return { ...account, id: body.id, cookie: `${SESSION_COOKIE}=${token}` };
}

/** A dashboard page as the signed-in browser asks for it. */
export function page(user: { cookie: string }, path: string): Promise<Response> {
  return call(path, { headers: { Cookie: user.cookie }, redirect: "manual" });
}

/** A dashboard form as the browser posts it (same origin unless told otherwise). */
export function post(user: { cookie: string }, path: string, origin: string | null = ORIGIN, body = ""): Promise<Response> {
  const headers: Record<string, string> = { Cookie: user.cookie, "Content-Type": "application/x-www-form-urlencoded" };
  if (origin !== null) headers.Origin = origin;
  return call(path, { method: "POST", headers, body, redirect: "manual" });
}
