import { secretsEqual } from "../auth/secrets";
import { ApiError } from "../http/errors";
import type { ChainKey } from "./queries";

/** What a chain cursor carries: where the previous page ended, the page-1 spot, and what it was issued for. */
export interface ChainCursor {
  /** Position after the last row returned. */
  after: ChainKey;
  /** Spot of page 1, kept on later pages. */
  spot: number;
  /** Digest of the normalised filters: a cursor only continues the query it came from. */
  query: string;
}

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

/** Imported once per secret per isolate (the resolved key, never a promise shared across requests). */
const keys = new Map<string, CryptoKey>();

async function mac(secret: string, payload: string): Promise<string> {
  let key = keys.get(secret);
  if (!key) {
    key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return base64url(signature.slice(0, 16));
}

/** Opaque, tamper-evident: base64url(JSON) + "." + truncated HMAC-SHA256. */
export async function encodeCursor(secret: string, cursor: ChainCursor): Promise<string> {
  const payload = base64url(encoder.encode(JSON.stringify([cursor.after, cursor.spot, cursor.query])));
  return `${payload}.${await mac(secret, payload)}`;
}

const invalid = () =>
  new ApiError("invalid_parameter", "Invalid query parameter 'cursor': not a cursor issued for this query; start again without it.");

/** Verifies and decodes a cursor; anything forged, corrupted or issued for other filters → 400. */
export async function decodeCursor(secret: string, text: string, query: string): Promise<ChainCursor> {
  const [payload, signature, extra] = text.split(".");
  if (!payload || !signature || extra !== undefined || text.length > 512) throw invalid();
  if (!secretsEqual(signature, await mac(secret, payload))) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
  } catch {
    throw invalid();
  }
  const [after, spot, forQuery] = Array.isArray(decoded) ? decoded : [];
  const validKey =
    Array.isArray(after) &&
    after.length === 4 &&
    typeof after[0] === "string" &&
    typeof after[1] === "number" &&
    typeof after[2] === "string" &&
    typeof after[3] === "string";
  if (!validKey || typeof spot !== "number" || forQuery !== query) throw invalid();
  return { after: after as ChainKey, spot, query };
}

/** A stable digest of the normalised filters a cursor is bound to. */
export async function queryDigest(filters: object): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(filters)));
  return base64url(new Uint8Array(digest).slice(0, 12));
}
