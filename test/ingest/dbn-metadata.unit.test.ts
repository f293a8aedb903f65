import { describe, expect, it } from "vitest";
import { DbnDecodeError, DbnDecoder, decodeMetadata, MAX_METADATA_LEN, metadataLength } from "../../ingest/dbn";
import { metadataHeader } from "./dbn-fixtures";

describe("DBN metadata header", () => {
  it.each([2, 3])("decodes a v%i header written by hand", (version) => {
    const bytes = metadataHeader(version, 17, true);
    expect(metadataLength(bytes)).toBe(bytes.length);
    expect(decodeMetadata(bytes)).toStrictEqual({
      version,
      dataset: "OPRA.PILLAR",
      schema: "tcbbo",
      start: 1_736_467_200_000_000_000n,
      end: 1_736_553_600_000_000_000n,
      limit: null,
      stypeIn: "parent",
      stypeOut: "instrument_id",
      tsOut: true,
      symbolCstrLen: 71,
      symbols: ["AAPL.OPT"],
      partial: [],
      notFound: [],
      mappings: [
        {
          rawSymbol: "AAPL  250117C00150000",
          intervals: [{ startDate: 20250110, endDate: 20250111, symbol: "1234567" }],
        },
      ],
    });
  });

  it("maps schema 0xFFFF (mixed live data) to null", () => {
    const bytes = metadataHeader(3, 0xffff, false);
    expect(decodeMetadata(bytes).schema).toBeNull();
  });

  it("asks for more bytes before the prelude is complete", () => {
    const bytes = metadataHeader(3, 16, false);
    expect(metadataLength(bytes.subarray(0, 7))).toBeNull();
  });

  it.each([1, 4])("refuses DBN version %i with a clear error", (version) => {
    const bytes = metadataHeader(version, 16, false);
    expect(() => metadataLength(bytes)).toThrow(`unsupported DBN version ${version}: this decoder reads versions 2 and 3`);
  });

  it("refuses input without the DBN magic", () => {
    const bytes = metadataHeader(3, 16, false);
    bytes[0] = 0x28; // zstd frames start 0x28 0xB5 0x2F 0xFD
    expect(() => metadataLength(bytes)).toThrow(DbnDecodeError);
  });

  it("reports a header whose lists run past its length", () => {
    const bytes = metadataHeader(3, 16, false);
    new DataView(bytes.buffer).setUint32(112, 99, true); // 99 symbols that are not there
    expect(() => decodeMetadata(bytes)).toThrow(/metadata header ends inside symbols/);
  });

  describe("bounds every length and count it reads before allocating or looping", () => {
    /** Offsets in `metadataHeader`'s layout: symbol_cstr_len @53, the symbols count @112. */
    const SYMBOL_CSTR_LEN_AT = 53;
    const SYMBOLS_COUNT_AT = 112;

    it("refuses a metadata length over its limit from the prelude alone, before buffering what follows", () => {
      const prelude = metadataHeader(3, 16, false).slice(0, 8);
      new DataView(prelude.buffer).setUint32(4, 0xffff_ffff, true);
      expect(() => metadataLength(prelude)).toThrow(`metadata length 4294967295 is over the ${MAX_METADATA_LEN}-byte limit`);
      // A live session's decoder fails at once instead of holding the stream as "metadata" up to 4 GiB.
      expect(() => new DbnDecoder().push(prelude)).toThrow(DbnDecodeError);
      new DataView(prelude.buffer).setUint32(4, MAX_METADATA_LEN, true);
      expect(metadataLength(prelude)).toBe(8 + MAX_METADATA_LEN);
    });

    it("refuses symbol_cstr_len 0, with which 2^32 − 1 symbols of no bytes pass every bounds check", () => {
      const bytes = metadataHeader(3, 16, false);
      new DataView(bytes.buffer).setUint16(SYMBOL_CSTR_LEN_AT, 0, true);
      new DataView(bytes.buffer).setUint32(SYMBOLS_COUNT_AT, 0xffff_ffff, true);
      const started = performance.now();
      expect(() => decodeMetadata(bytes)).toThrow(new DbnDecodeError("symbol_cstr_len 0: DBN v3 symbols are 71 bytes", SYMBOL_CSTR_LEN_AT));
      expect(performance.now() - started).toBeLessThan(100);
    });

    it.each([
      [2, 22],
      [3, 22],
      [3, 72],
    ])("refuses a DBN v%i header whose symbols are %i bytes wide (v1: 22, v2 and v3: 71)", (version, width) => {
      const bytes = metadataHeader(version, 16, false);
      new DataView(bytes.buffer).setUint16(SYMBOL_CSTR_LEN_AT, width, true);
      expect(() => decodeMetadata(bytes)).toThrow(`symbol_cstr_len ${width}: DBN v${version} symbols are 71 bytes`);
    });

    it.each([
      // [what, offset of its count in the fixture's header]
      ["symbols", SYMBOLS_COUNT_AT],
      ["partial", SYMBOLS_COUNT_AT + 4 + 71],
      ["mappings", SYMBOLS_COUNT_AT + 4 + 71 + 8],
      ["mapping intervals", SYMBOLS_COUNT_AT + 4 + 71 + 12 + 71],
    ])("checks the %s count times its items' width against the bytes left", (what, at) => {
      const bytes = metadataHeader(3, 16, false);
      new DataView(bytes.buffer).setUint32(at, 0xffff_ffff, true);
      expect(() => decodeMetadata(bytes)).toThrow(new RegExp(`metadata header ends inside ${what}: 4294967295 of \\d+ bytes each`));
    });
  });
});
