import { isWellFormedKey, KEY_PREFIX } from "./api-key";

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

/** Anything that looks like one of our credentials, current or retired, anywhere in a text. */
const CREDENTIAL_SHAPE = /(ods_live_|ods_sess_|odk_)[0-9a-z_]{8}/i;
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
 * True when a URL carries credentials: a credential-named parameter (any case), or something
 * shaped like a key or session token in a parameter's name or value or in the path.
 */
export function hasCredentialsInUrl(url: URL): boolean {
  if (CREDENTIAL_SHAPE.test(decoded(url.pathname))) return true;
  for (const [name, value] of url.searchParams) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase()) || CREDENTIAL_SHAPE.test(name) || CREDENTIAL_SHAPE.test(value)) return true;
  }
  return false;
}
