import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { clientIp } from "../http/client-ip";
import { ApiError } from "../http/errors";
import { readCredentials } from "./credentials";
import { rememberedLockout, rememberLockout } from "./lockout-memory";
import { resolveKey, type ResolvedKey } from "./resolve-key";
import { services } from "../services";

const REALM = 'realm="options-data-service"';

export type FailureCode = "missing_api_key" | "invalid_api_key";

function unauthorized(code: FailureCode, message: string, realm: string): ApiError {
  const challenge =
    code === "missing_api_key"
      ? `Bearer ${realm}`
      : `Bearer ${realm}, error="invalid_token", error_description="${message.replace(/"/g, "'")}"`;
  return new ApiError(code, message, { headers: { "WWW-Authenticate": challenge } });
}

export function lockedOut(retryAfterSeconds: number): ApiError {
  return new ApiError("too_many_auth_failures", "Too many failed authentication attempts from this address; try again later.", {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });
}

export const REVOKED_OR_UNKNOWN = "The API key is not valid or has been revoked.";

/**
 * Counts a failed authentication against the caller's address and throws the matching error: 401,
 * or 429 once the address is locked. The rule is the same on every isolate: a locked address is
 * refused whenever it fails to authenticate, and a valid credential always passes; this isolate's
 * memory of a lockout only saves the call to the guard, which would answer the same.
 */
export async function authenticationFailed(c: Context<AppEnv>, code: FailureCode, message: string, realm = REALM): Promise<never> {
  const ip = clientIp(c);
  const remembered = rememberedLockout(ip);
  if (remembered > 0) throw lockedOut(remembered);
  const state = await c.env.AUTH_GUARD.getByName(ip).recordFailure();
  rememberLockout(ip, state);
  if (state.locked) throw lockedOut(state.retryAfterSeconds);
  throw unauthorized(code, message, realm);
}

/** Keys not in memory or KV cost a Postgres query: a client may make only so many such lookups a minute. */
async function allowKeyLookup(c: Context<AppEnv>): Promise<void> {
  const { success } = await c.env.KEY_LOOKUP_LIMITER.limit({ key: clientIp(c) });
  if (!success) throw lockedOut(60);
}

/**
 * Who is calling: the `Authorization` header (shape and checksum before any I/O) and the key →
 * account lookup. Every failure is counted against the address; a key known to be revoked is one,
 * so the client's lockout is checked before any call to the account's object.
 */
export async function authenticate(c: Context<AppEnv>): Promise<ResolvedKey & { key: string }> {
  const credentials = readCredentials(c.req.header("Authorization"));
  if (credentials.kind === "missing") {
    return authenticationFailed(c, "missing_api_key", "An API key is required: send 'Authorization: Bearer <API key>'.");
  }
  if (credentials.kind === "session_token") {
    throw new ApiError("wrong_credential_type", "Dashboard session tokens cannot call the API; use an API key.");
  }
  if (credentials.kind === "invalid") return authenticationFailed(c, "invalid_api_key", credentials.reason);

  const identity = await resolveKey(credentials.key, {
    cache: c.env.KEY_CACHE,
    beforeLookup: () => allowKeyLookup(c),
    db: () => services(c).control,
    defer: (p) => c.executionCtx.waitUntil(p),
  });
  if (!identity || identity.revoked) return authenticationFailed(c, "invalid_api_key", REVOKED_OR_UNKNOWN);
  return { ...identity, key: credentials.key };
}
