import { checksummedFormat } from "./api-key";

/**
 * Admin token format, like the API keys': `ods_admin_` + 43 random base62 characters (≥ 256 bits)
 * + a 6-character base62 CRC32 of the random part, 59 characters in all. Only generated tokens
 * pass: a hand-picked passphrase fails the checksum, and the prefix makes a leaked token easy to
 * recognise (secret scanning, logs). Generate one with `npm run admin -- token`.
 */
export const ADMIN_TOKEN_PREFIX = "ods_admin_";
const adminTokenFormat = checksummedFormat(ADMIN_TOKEN_PREFIX);

export function generateAdminToken(): string {
  return adminTokenFormat.generate();
}

/** True when the text has the admin token's shape and a matching checksum; performs no I/O. */
export function isWellFormedAdminToken(token: string): boolean {
  return adminTokenFormat.isWellFormed(token);
}
