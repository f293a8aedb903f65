import { describe, expect, it } from "vitest";
import { DbnDecoder, DbnDecodeError, nanosToMs, priceToNumber, type DbnItem } from "../../ingest/dbn";
import { concatBytes, LeBytes } from "./dbn-bytes";
import {
  cbbo1m,
  definitionV2,
  definitionV3,
  errorRecord,
  heartbeat,
  metadataHeader,
  statisticV2,
  statisticV3,
  symbolMapping,
  tcbbo,
  TS_EVENT,
} from "./dbn-fixtures";

function decode(version: number, tsOut: boolean, ...records: Uint8Array[]): DbnItem[] {
  const decoder = new DbnDecoder();
  const items = decoder.push(concatBytes(metadataHeader(version, 17, tsOut), ...records));
  decoder.finish();
  return items.slice(1);
}

describe("DBN v3 records written by hand decode field by field", () => {
  it.each([
    ["definition (InstrumentDefMsg)", definitionV3],
    ["statistics (StatMsg, open interest)", statisticV3],
    ["cbbo-1m (CbboMsg)", cbbo1m],
    ["tcbbo (Cmbp1Msg)", tcbbo],
    ["symbol mapping (SymbolMappingMsg)", symbolMapping],
    ["system heartbeat (SystemMsg)", heartbeat],
    ["error (ErrorMsg)", errorRecord],
  ])("%s", (_name, fixture) => {
    const { bytes, record } = fixture();
    expect(decode(3, false, bytes)).toStrictEqual([record]);
  });
});

describe("DBN v2 layouts that differ from v3", () => {
  it("definition: InstrumentDefMsgV2 (400 bytes, u32 raw_instrument_id, 7-byte asset)", () => {
    const { bytes, record } = definitionV2();
    expect(decode(2, false, bytes)).toStrictEqual([record]);
  });

  it("statistics: StatMsgV1 (64 bytes, i32 quantity, i32::MAX is undefined)", () => {
    const { bytes, record } = statisticV2();
    expect(decode(2, false, bytes)).toStrictEqual([record]);
  });

  it("the records v2 shares with v3 decode the same", () => {
    for (const fixture of [cbbo1m, tcbbo, symbolMapping, heartbeat, errorRecord]) {
      const { bytes, record } = fixture();
      expect(decode(2, false, bytes)).toStrictEqual([record]);
    }
  });
});

describe("ts_out", () => {
  it("reads the trailing u64 when the metadata says ts_out, and counts it in the length", () => {
    const { bytes, record } = tcbbo();
    const tsOut = TS_EVENT + 5_000_000n;
    const withTsOut = new LeBytes(88);
    withTsOut.bytes.set(bytes);
    withTsOut.u8(0, 88 / 4).u64(80, tsOut); // length in words; ts_out after the record
    expect(decode(3, true, withTsOut.bytes)).toStrictEqual([{ ...record, tsOut }]);
  });

  it("refuses a record too short for its layout plus ts_out", () => {
    const { bytes } = tcbbo();
    expect(() => decode(3, true, bytes)).toThrow(DbnDecodeError);
  });
});

describe("fixed-point prices and timestamps", () => {
  it("converts 1e-9 units to numbers, UNDEF_PRICE to null, negatives exactly", () => {
    expect(priceToNumber(150_000_000_000n)).toBe(150);
    expect(priceToNumber(2_180_000_000n)).toBe(2.18);
    expect(priceToNumber(-1_000_000n)).toBe(-0.001);
    expect(priceToNumber(0x7fff_ffff_ffff_ffffn)).toBeNull();
  });

  it("turns nanoseconds into JS milliseconds", () => {
    expect(nanosToMs(TS_EVENT)).toBe(1_736_519_400_123);
    expect(new Date(nanosToMs(TS_EVENT)).toISOString()).toBe("2025-01-10T14:30:00.123Z");
  });
});
