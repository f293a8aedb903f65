import { isWellFormedKey, KEY_LENGTH, KEY_PREFIX } from "../domain/api-key";

export const SESSION_TOKEN_PREFIX = "ods_sess_";
/** Prefixes of key formats we issued before and no longer accept. */
const RETIRED_PREFIXES = ["odk_"];

export type Credentials =
  { kind: "missing" } | { kind: "session_token" } | { kind: "invalid"; reason: string } | { kind: "key"; key: string };

/**
 * Reads `Authorization: Bearer <key>` without any I/O: shape, prefix and checksum are checked
 * here. The scheme is case-insensitive (RFC 7235); the token must be a single word.
 */
export function readCredentials(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === "") return { kind: "missing" };
  const match = /^(\S+)(?:\s+(.*))?$/.exec(header.trim());
  const scheme = match?.[1] ?? "";
  const token = (match?.[2] ?? "").trim();
  if (scheme.toLowerCase() !== "bearer") return { kind: "invalid", reason: "Use the Bearer scheme: 'Authorization: Bearer <API key>'." };
  if (token === "") return { kind: "missing" };
  if (/\s/.test(token)) return { kind: "invalid", reason: "The Authorization header must carry exactly one API key." };
  if (token.startsWith(SESSION_TOKEN_PREFIX)) return { kind: "session_token" };
  if (RETIRED_PREFIXES.some((p) => token.startsWith(p)))
    return { kind: "invalid", reason: "This key format is no longer accepted; create a new key in the dashboard." };
  if (!token.startsWith(KEY_PREFIX) || !isWellFormedKey(token)) return { kind: "invalid", reason: "The API key is malformed." };
  return { kind: "key", key: token };
}

/**
 * Our credentials as whole tokens (docs/api.md, "Keys, plans and limits"): a key (`ods_live_` +
 * 49 base62, 58 characters), a retired key (the same format under `odk_live_`) or a dashboard
 * session token (`ods_sess_` + base62), delimited by the text's ends or characters outside
 * base62. Any case, and the key's checksum is not checked, so a key re-cased or mistyped on its
 * way into a URL is still found; a longer base62 run, or a prefix inside a word (a base64url
 * cursor's `…xodk_12345678…`), is not a key.
 */
const CREDENTIAL_TOKEN = new RegExp(
  `(?<![0-9a-z])(?:(?:${KEY_PREFIX}|odk_live_)[0-9a-z]{${KEY_LENGTH - KEY_PREFIX.length}}|${SESSION_TOKEN_PREFIX}[0-9a-z]+)(?![0-9a-z])`,
  "i",
);
/**
 * Parameters whose values are never searched for key shapes: pagination cursors (signed values we
 * issue, base64url text that can hold any run of characters) and the OpenID Connect callback's
 * `code` and `state` (random values of the identity provider and the sign-in). A key pasted into
 * one of them is not accepted there either: a cursor that does not verify is a 400 that does not
 * echo it, and a callback that does not verify is a sign-in failure.
 */
const OPAQUE_PARAMS = new Set(["cursor", "code", "state"]);
/** Parameter names that announce a credential, compared without case. */
const CREDENTIAL_PARAMS = new Set([
  "api_key",
  "apikey",
  "api-key",
  "x-api-key",
  "access_token",
  "token",
  "key",
  "authorization",
  "auth",
  "bearer",
]);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * True when a URL carries credentials: a credential-named parameter (any case), or a key, retired
 * key or session token as a whole token in the path, in a parameter's name, or in the value of any
 * parameter but a cursor or the sign-in callback's `code` and `state`.
 */
export function hasCredentialsInUrl(url: URL): boolean {
  if (CREDENTIAL_TOKEN.test(decoded(url.pathname))) return true;
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase()) || CREDENTIAL_TOKEN.test(name)) return true;
    if (!OPAQUE_PARAMS.has(name) && CREDENTIAL_TOKEN.test(value)) return true;
  }
  return false;
}
