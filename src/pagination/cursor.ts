import { secretsEqual } from "../access/secrets";
import { hmacSha256 } from "../crypto/hmac";

/**
 * Opaque, tamper-evident pagination cursors: base64url(JSON payload) + "." + truncated
 * HMAC-SHA256, bound to a digest of the query they continue. Any list endpoint can use them;
 * the payload's shape is the caller's to check.
 */

const MAX_CURSOR_LENGTH = 512;
const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array {
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

async function mac(secret: string, payload: string): Promise<string> {
  return base64url((await hmacSha256(secret, payload)).slice(0, 16));
}

/** Signs `position` (any JSON value) for the query with digest `query`, with the first of the secrets. */
export async function encodeCursor(secrets: readonly string[], position: unknown, query: string): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify([position, query])));
  return `${payload}.${await mac(secrets[0] as string, payload)}`;
}

/**
 * The position a cursor carries, or null when it is forged, corrupted, too long or issued for
 * another query. Any of the secrets verifies, so cursors survive a rotation.
 */
export async function decodeCursor(secrets: readonly string[], text: string, query: string): Promise<unknown> {
  const [payload, signature, extra] = text.split(".");
  if (!payload || !signature || extra !== undefined || text.length > MAX_CURSOR_LENGTH) return null;
  const macs = await Promise.all(secrets.map((s) => mac(s, payload)));
  // Every secret is compared, so the time taken does not reveal which one matched.
  if (!macs.map((m) => secretsEqual(signature, m)).includes(true)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2 || decoded[1] !== query) return null;
  return decoded[0] ?? null;
}

/** A stable digest of the normalised parameters a cursor is bound to. */
export async function queryDigest(parameters: object): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(parameters)));
  return base64url(new Uint8Array(digest).slice(0, 12));
}
