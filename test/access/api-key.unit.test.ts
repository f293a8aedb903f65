import { describe, expect, it } from "vitest";
import { checksumOf, crc32, displayPrefix, generateApiKey, hashApiKey, isWellFormedKey, KEY_LENGTH } from "../../src/domain/api-key";

describe("API key format", () => {
  it("generates 58-character keys with the ods_live_ prefix and a valid checksum", () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toHaveLength(KEY_LENGTH);
      expect(key).toMatch(/^ods_live_[0-9A-Za-z]{49}$/);
      expect(isWellFormedKey(key)).toBe(true);
      expect(displayPrefix(key)).toBe(key.slice(0, 16));
    }
  });

  it("draws the random part uniformly over base62 (no modulo bias)", () => {
    const counts = new Map<string, number>();
    const samples = 2_000;
    for (let i = 0; i < samples; i++) {
      for (const ch of generateApiKey().slice(9, 52)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    const expected = (samples * 43) / 62;
    // Chi-square with 61 degrees of freedom: a fair generator exceeds 153 once in 10⁹ runs (Wilson–Hilferty;
    // 115 failed about once in 25,000). A plain byte % 62 (8 characters a fifth likelier) scores ≈ 570 here.
    const chi2 = [...counts.values()].reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(153);
  });

  it("uses the standard CRC-32 (IEEE) for the checksum", () => {
    expect(crc32("123456789")).toBe(0xcbf43926);
    expect(checksumOf("a")).toHaveLength(6);
  });

  it("rejects wrong lengths, characters, prefixes and checksums without I/O", () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 20) + (key[20] === "a" ? "b" : "a") + key.slice(21);
    for (const bad of [
      "",
      key.slice(0, 57),
      `${key}x`,
      key.replace("ods_live_", "ODS_LIVE_"),
      key.replace("ods_live_", "odk_live_"),
      `${key.slice(0, 30)}-${key.slice(31)}`,
      ` ${key.slice(1)}`,
      flipped,
    ]) {
      expect(isWellFormedKey(bad), bad).toBe(false);
    }
  });

  it("hashes keys with SHA-256 to 64 hex characters", async () => {
    expect(await hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
