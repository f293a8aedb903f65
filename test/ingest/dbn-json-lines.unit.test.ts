import { describe, expect, it } from "vitest";
import { DbnDecodeError, JsonLinesDecoder, readDbnJsonLines, recordFromJson } from "../../ingest/dbn";
import { chunksOf, collect } from "./dbn-bytes";
import { cbbo1m, definitionV3, errorRecord, heartbeat, statisticV3, symbolMapping, tcbbo } from "./dbn-fixtures";

const fixtures = { definitionV3, statisticV3, cbbo1m, tcbbo, symbolMapping, heartbeat, errorRecord };

describe("DBN JSON lines decode to the same objects as their binary twins", () => {
  it.each(Object.entries(fixtures))("%s", (_name, fixture) => {
    const { json, record } = fixture();
    expect(recordFromJson(JSON.parse(json))).toStrictEqual(record);
  });

  it("reads pretty prices (decimal strings, null for UNDEF) and pretty timestamps (ISO 8601)", () => {
    const { prettyJson, record } = definitionV3();
    expect(recordFromJson(JSON.parse(prettyJson))).toStrictEqual(record);
  });

  it("reads the v2 statistics quantity (an i32 number) and its undefined value", () => {
    const { json, record } = statisticV3();
    const v2 = json.replace(`"quantity":"12345"`, `"quantity":2147483647`);
    expect(recordFromJson(JSON.parse(v2))).toStrictEqual({ ...record, quantity: null });
  });

  it("reads ts_out and the optional symbol field", () => {
    const { json, record } = tcbbo();
    const line = json.replace(/}$/, `,"ts_out":"1736519400200000000","symbol":"AAPL  250117C00150000"}`);
    // The symbol the vendor mapped (`map_symbols`) is kept: a file without definitions names its instruments by it.
    expect(recordFromJson(JSON.parse(line))).toStrictEqual({
      ...record,
      tsOut: 1_736_519_400_200_000_000n,
      symbol: "AAPL  250117C00150000",
    });
  });
});

describe("JSON-lines streams", () => {
  const metadataLine =
    `{"version":3,"dataset":"OPRA.PILLAR","schema":"tcbbo","start":"1736467200000000000","end":"1736553600000000000",` +
    `"limit":null,"stype_in":"parent","stype_out":"instrument_id","ts_out":false,"symbol_cstr_len":71,"symbols":["AAPL.OPT"],` +
    `"partial":[],"not_found":[],"mappings":[{"raw_symbol":"AAPL  250117C00150000","intervals":[{"start_date":20250110,"end_date":20250111,"symbol":"1234567"}]}]}`;
  const unknown = `{"hd":{"ts_event":"1","rtype":33,"publisher_id":30,"instrument_id":1},"open":"1","high":"1","low":"1","close":"1","volume":"1"}`;
  const text = [metadataLine, tcbbo().json, unknown, heartbeat().json, cbbo1m().json].join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);

  it("yields the metadata line, then records, skipping and counting unknown rtypes, across any chunking", async () => {
    for (const cut of [1, 100, 700, 900, bytes.length - 1]) {
      const decoder = new JsonLinesDecoder();
      const items = await collect(readDbnJsonLines(chunksOf(bytes, cut), decoder));
      expect(items[0]).toMatchObject({
        kind: "metadata",
        metadata: { version: 3, schema: "tcbbo", stypeIn: "parent", end: 1_736_553_600_000_000_000n, limit: null },
      });
      expect(items.slice(1)).toStrictEqual([tcbbo().record, heartbeat().record, cbbo1m().record]);
      expect(decoder.skipped).toStrictEqual(new Map([[33, 1]]));
    }
  });

  it("decodes a last line without a newline", async () => {
    const items = await collect(readDbnJsonLines([tcbbo().json]));
    expect(items).toStrictEqual([tcbbo().record]);
  });

  it("counts a malformed line and a truncated last line with their byte offsets, and decodes every other line", async () => {
    const bad = '{"hd":{"rtype":194';
    const withBad = [metadataLine, tcbbo().json, bad, heartbeat().json, cbbo1m().json].join("\n");
    const cut = withBad.slice(0, withBad.length - 20);
    const reported: DbnDecodeError[] = [];
    const decoder = new JsonLinesDecoder((error) => reported.push(error));
    const items = await collect(readDbnJsonLines([cut], decoder));
    expect(items.slice(1)).toStrictEqual([tcbbo().record, heartbeat().record]);
    expect(decoder.malformed).toBe(2);
    expect(reported.map((e) => e.offset)).toEqual([withBad.indexOf(bad), withBad.lastIndexOf("\n") + 1]);
    expect(reported[0]).toBeInstanceOf(DbnDecodeError);
  });

  it("counts a line over the length limit as malformed without holding it, and decodes the lines after it", async () => {
    // A valid record padded past a limit of 1,000 characters, cut across chunks: it is passed over to its newline.
    const long = tcbbo().json.replace("{", `{${" ".repeat(1_000)}`);
    const lines = [tcbbo().json, long, heartbeat().json, cbbo1m().json].join("\n") + "\n";
    const bytes = new TextEncoder().encode(lines);
    for (const cut of [10, lines.indexOf(long) + 500, lines.indexOf(long) + 1_200]) {
      const reported: DbnDecodeError[] = [];
      const decoder = new JsonLinesDecoder((error) => reported.push(error), 1_000);
      const items = await collect(readDbnJsonLines(chunksOf(bytes, cut), decoder));
      expect(items).toStrictEqual([tcbbo().record, heartbeat().record, cbbo1m().record]);
      expect(decoder.malformed).toBe(1);
      expect(reported.map((e) => [e.offset, e.message])).toEqual([
        [lines.indexOf(long), `line longer than 1000 characters (at byte offset ${lines.indexOf(long)})`],
      ]);
    }
  });
});
