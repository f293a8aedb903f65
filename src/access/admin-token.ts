import { checksumOf, randomBase62 } from "./api-key";

/**
 * Admin token format, like the API keys': `ods_admin_` + 43 random base62 characters (≥ 256 bits)
 * + a 6-character base62 CRC32 of the random part, 59 characters in all. Only generated tokens
 * pass: a hand-picked passphrase fails the checksum, and the prefix makes a leaked token easy to
 * recognise (secret scanning, logs). Generate one with `npm run admin -- token`.
 */
export const ADMIN_TOKEN_PREFIX = "ods_admin_";
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const ADMIN_TOKEN_LENGTH = ADMIN_TOKEN_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const TOKEN_PATTERN = /^ods_admin_[0-9A-Za-z]{49}$/;

export function generateAdminToken(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${ADMIN_TOKEN_PREFIX}${random}${checksumOf(random)}`;
}

/** True when the text has the admin token's shape and a matching checksum; performs no I/O. */
export function isWellFormedAdminToken(token: string): boolean {
  if (token.length !== ADMIN_TOKEN_LENGTH || !TOKEN_PATTERN.test(token)) return false;
  const random = token.slice(ADMIN_TOKEN_PREFIX.length, ADMIN_TOKEN_PREFIX.length + RANDOM_LENGTH);
  return token.slice(ADMIN_TOKEN_PREFIX.length + RANDOM_LENGTH) === checksumOf(random);
}
