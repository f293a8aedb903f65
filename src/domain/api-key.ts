import { sha256Hex } from "../crypto/sha256";

/**
 * API key format (docs/api.md, "Keys, plans and limits"): `ods_live_` + 43 random base62
 * characters + a 6-character base62 CRC32 of the random part, 58 characters in all. Format and
 * checksum are checked before any I/O; keys are stored only as SHA-256 hashes plus a 16-character
 * display prefix. Pure apart from WebCrypto (random bytes, SHA-256): the control plane issues
 * keys, the access layer checks them.
 */

export const KEY_PREFIX = "ods_live_";
export const KEY_LENGTH = 58;
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
export const DISPLAY_PREFIX_LENGTH = 16;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let i = 0; i < text.length; i++) crc = (CRC_TABLE[(crc ^ text.charCodeAt(i)) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function base62(value: number, width: number): string {
  let out = "";
  let v = value;
  while (v > 0) {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  }
  return out.padStart(width, "0");
}

export function checksumOf(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

/** 43 uniform base62 characters by rejection sampling (bytes ≥ 248 are redrawn: no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(64));
    for (const b of bytes) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/**
 * A token format of ours: `prefix` + 43 random base62 characters (256 bits) + a 6-character base62
 * CRC32 of the random part. Only generated tokens pass `isWellFormed`, checked before any I/O.
 */
export function checksummedFormat(prefix: string) {
  const pattern = new RegExp(`^${prefix}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
  const randomEnd = prefix.length + RANDOM_LENGTH;
  return {
    length: randomEnd + CHECKSUM_LENGTH,
    generate(): string {
      const random = randomBase62(RANDOM_LENGTH);
      return `${prefix}${random}${checksumOf(random)}`;
    },
    isWellFormed(text: string): boolean {
      return pattern.test(text) && text.slice(randomEnd) === checksumOf(text.slice(prefix.length, randomEnd));
    },
  };
}

const apiKeyFormat = checksummedFormat(KEY_PREFIX);

export function generateApiKey(): string {
  return apiKeyFormat.generate();
}

/** True when the text has the key shape and a matching checksum; performs no I/O. */
export function isWellFormedKey(key: string): boolean {
  return apiKeyFormat.isWellFormed(key);
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Hex SHA-256 of the key: the only form in which keys are stored or cached. */
export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}
