import { describe, expect, it } from "vitest";
import { DbnDecoder } from "../../ingest/dbn";
import { encodeMetadata, encodeRecord, numberToPrice } from "../../ingest/dbn/encode";
import { cbbo1m, definitionV3, errorRecord, heartbeat, statisticV3, symbolMapping, tcbbo } from "./dbn-fixtures";

const METADATA = {
  dataset: "OPRA.PILLAR",
  schema: null,
  start: 1_736_519_400_000_000_000n,
  end: null,
  stypeIn: "parent",
  stypeOut: "instrument_id",
  tsOut: false,
} as const;

/** Decodes a whole stream written by the encoder. */
function decode(...parts: Uint8Array[]) {
  const decoder = new DbnDecoder();
  const items = parts.flatMap((p) => decoder.push(p));
  decoder.finish();
  return items;
}

describe("DBN v3 encoding", () => {
  it.each([
    ["definition", definitionV3],
    ["statistics", statisticV3],
    ["cbbo-1m", cbbo1m],
    ["tcbbo", tcbbo],
    ["symbol mapping", symbolMapping],
    ["heartbeat", heartbeat],
    ["error", errorRecord],
  ])("writes a %s record that decodes to every field it was given", (_, fixture) => {
    const { record } = fixture();
    const [metadata, decoded] = decode(encodeMetadata(METADATA), encodeRecord(record));
    expect(metadata).toMatchObject({ kind: "metadata", metadata: { version: 3, dataset: "OPRA.PILLAR", schema: null, stypeIn: "parent" } });
    expect(decoded).toEqual(record);
  });

  it("writes the hand-made bytes of the published layouts for the fields the pipeline reads", () => {
    for (const fixture of [cbbo1m, tcbbo, heartbeat]) {
      const { bytes, record } = fixture();
      expect(encodeRecord(record)).toEqual(bytes);
    }
  });

  it("appends ts_out when the stream carries it", () => {
    const { record } = tcbbo();
    const [, decoded] = decode(encodeMetadata({ ...METADATA, tsOut: true }), encodeRecord({ ...record, tsOut: 42n }, true));
    expect(decoded).toEqual({ ...record, tsOut: 42n });
  });

  it("rounds prices to the nano unit and writes null as UNDEF_PRICE", () => {
    expect(numberToPrice(2.18)).toBe(2_180_000_000n);
    expect(numberToPrice(-4100.25)).toBe(-4_100_250_000_000n);
    expect(numberToPrice(null)).toBe(0x7fff_ffff_ffff_ffffn);
  });

  it("refuses a symbol longer than its field", () => {
    expect(() => encodeRecord({ ...definitionV3().record, underlying: "X".repeat(21) })).toThrow(/21-byte C string/);
  });
});
