import { describe, expect, it } from "vitest";
import { copyBinary } from "../../ingest/db/copy-binary";
import type { CopyColumn, CopyValue } from "../../ingest/db/database";
import { ingestDatabase } from "../support/ingest-database";

const COLUMNS: CopyColumn[] = [
  { name: "label", type: "text" },
  { name: "value", type: "float8" },
  { name: "count", type: "int4" },
  { name: "big", type: "int8" },
  { name: "small", type: "int2" },
  { name: "flag", type: "bool" },
  { name: "day", type: "date" },
  { name: "at", type: "timestamptz" },
];
const TABLE = `copied (label text, value float8, count int4, big int8, small int2, flag bool, day date, at timestamptz)`;

describe("COPY binary format", () => {
  it("frames rows as PostgreSQL reads them: signature, a field count per row, lengths, big-endian values, -1 for NULL, the trailer", () => {
    const bytes = Buffer.concat([...copyBinary([COLUMNS[0]!, COLUMNS[1]!], [["é", null]])]);
    expect(bytes.subarray(0, 11).toString("latin1")).toBe("PGCOPY\n\xff\r\n\0");
    expect(bytes.readInt16BE(19)).toBe(2);
    expect(bytes.readInt32BE(21)).toBe(2); // "é" is two bytes of UTF-8
    expect(bytes.subarray(25, 27).toString("utf8")).toBe("é");
    expect(bytes.readInt32BE(27)).toBe(-1);
    expect(bytes.readInt16BE(31)).toBe(-1);
    expect(bytes.length).toBe(33);
  });

  it("hands on chunks of about a megabyte, each a prefix of whole rows", () => {
    const rows = Array.from({ length: 100_000 }, (_, i) => [`row-${i}`, i]);
    const chunks = [...copyBinary([COLUMNS[0]!, COLUMNS[1]!], rows)];
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.length <= 1 << 20)).toBe(true);
  });

  it("refuses a row of the wrong width and a value its column cannot hold, rather than write a wrong row", () => {
    expect(() => [...copyBinary(COLUMNS.slice(0, 2), [["only one"]])]).toThrow(/1 values for 2 columns/);
    expect(() => [...copyBinary([COLUMNS[6]!], [["2026-13-45"]])]).toThrow(/not a date/);
    expect(() => [...copyBinary([COLUMNS[7]!], [["yesterday"]])]).toThrow(/not a timestamp/);
  });

  it("copies rows into a table inside a transaction, every type intact, on this engine", async () => {
    const db = await ingestDatabase();
    try {
      const rows: CopyValue[][] = [
        ["plain", 1.25, 7, 9_007_199_254_740_000, -3, true, "2026-12-18", "2026-03-03T14:31:00.123Z"],
        ["tab\there, back\\slash\nnewline, ünïcode ✓", -2e-7, -1, -5, 0, false, "1999-12-31", "1999-12-31T23:59:59.999Z"],
        ["nulls", null, null, null, null, null, null, null],
        ["extremes", Number.MAX_VALUE, 2_147_483_647, 0, 32_767, "true", "2000-01-01", Date.UTC(2000, 0, 1)],
      ];
      const stored = await db.typedTransaction(async (query, copy) => {
        await query(`create temp table ${TABLE} on commit drop`);
        await copy("copied", COLUMNS, rows);
        return (
          await query(
            `select label, value, count, big::text as big, small, flag, day::text as day, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at
               from copied order by label`,
          )
        ).rows;
      });
      expect(stored).toEqual([
        {
          label: "extremes",
          value: Number.MAX_VALUE,
          count: 2_147_483_647,
          big: "0",
          small: 32_767,
          flag: true,
          day: "2000-01-01",
          at: "2000-01-01T00:00:00.000Z",
        },
        { label: "nulls", value: null, count: null, big: null, small: null, flag: null, day: null, at: null },
        {
          label: "plain",
          value: 1.25,
          count: 7,
          big: "9007199254740000",
          small: -3,
          flag: true,
          day: "2026-12-18",
          at: "2026-03-03T14:31:00.123Z",
        },
        {
          label: "tab\there, back\\slash\nnewline, ünïcode ✓",
          value: -2e-7,
          count: -1,
          big: "-5",
          small: 0,
          flag: false,
          day: "1999-12-31",
          at: "1999-12-31T23:59:59.999Z",
        },
      ]);
    } finally {
      await db.close();
    }
  });
});
