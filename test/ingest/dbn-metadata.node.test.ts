import { describe, expect, it } from "vitest";
import { DbnDecodeError, decodeMetadata, metadataLength } from "../../ingest/dbn";
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
});
