import { describe, expect, it } from "vitest";
import { copyText } from "../../ingest/pipeline/copy-text";
import { ingestDatabase } from "../support/ingest-database";

describe("COPY text format", () => {
  it("escapes what the format reserves, writes NULL as \\N and numbers as PostgreSQL reads them", () => {
    expect([...copyText([["a\tb\\c\nd\re", null, 1.5, -2e-7, true]])].join("")).toBe("a\\tb\\\\c\\nd\\re\t\\N\t1.5\t-2e-7\ttrue\n");
  });

  it("hands on chunks of whole lines", () => {
    const chunks = [...copyText(Array.from({ length: 20_000 }, (_, i) => [`row-${i}`, i]))];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.endsWith("\n"))).toBe(true);
    expect(chunks.join("").split("\n")).toHaveLength(20_001);
  });

  it("copies rows into a table inside a transaction, values intact, on this engine", async () => {
    const db = await ingestDatabase();
    try {
      const rows = [
        ["plain", 1.25, "2026-03-03T14:31:00.000Z"],
        ["tab\there, back\\slash\nnewline", null, null],
      ] as const;
      const stored = await db.typedTransaction(async (query, copy) => {
        await query(`create temp table copied (label text, value float8, at timestamptz) on commit drop`);
        await copy("copied", ["label", "value", "at"], rows);
        return (await query(`select label, value, at from copied order by label`)).rows;
      });
      expect(stored.map((r) => [r.label, r.value, r.at === null ? null : new Date(r.at as string).toISOString()])).toEqual([
        ["plain", 1.25, "2026-03-03T14:31:00.000Z"],
        ["tab\there, back\\slash\nnewline", null, null],
      ]);
    } finally {
      await db.close();
    }
  });
});
