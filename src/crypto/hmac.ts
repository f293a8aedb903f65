const encoder = new TextEncoder();
/** Imported once per secret per isolate (the resolved key, never a promise shared across requests). */
const keys = new Map<string, CryptoKey>();

/** HMAC-SHA256 of a UTF-8 message under a UTF-8 secret. */
export async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  let key = keys.get(secret);
  if (!key) {
    key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(secret, key);
  }
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}
