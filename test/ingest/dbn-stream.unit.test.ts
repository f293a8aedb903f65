import { zstdCompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { DbnDecoder, DbnDecodeError, readDbn, readDbnZst, type DbnItem } from "../../ingest/dbn";
import { chunksOf, collect, concatBytes } from "./dbn-bytes";
import { cbbo1m, heartbeat, metadataHeader, ohlcv1m, statisticV3, tcbbo } from "./dbn-fixtures";

const header = metadataHeader(3, 17, false);
const records = [tcbbo(), heartbeat(), cbbo1m()];
const stream = concatBytes(header, ...records.map((r) => r.bytes));

function expectStream(items: DbnItem[]): void {
  expect(items[0]).toMatchObject({ kind: "metadata", metadata: { dataset: "OPRA.PILLAR", schema: "tcbbo" } });
  expect(items.slice(1)).toStrictEqual(records.map((r) => r.record));
}

describe("streaming DBN decode", () => {
  it("yields the metadata, then the records", async () => {
    expectStream(await collect(readDbn(chunksOf(stream))));
  });

  it("gives the same items whatever byte a chunk boundary falls on", async () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      expectStream(await collect(readDbn(chunksOf(stream, cut))));
    }
  });

  it("gives the same items fed one byte at a time", () => {
    const decoder = new DbnDecoder();
    const items = Array.from(stream, (byte) => decoder.push(Uint8Array.of(byte))).flat();
    decoder.finish();
    expectStream(items);
    expect(decoder.offset).toBe(stream.length);
  });

  it("decodes a .dbn.zst stream through node:zlib", async () => {
    const compressed = zstdCompressSync(stream);
    expect(compressed[0]).toBe(0x28); // zstd magic 0xFD2FB528, little-endian
    const middle = Math.floor(compressed.length / 2);
    expectStream(await collect(readDbnZst(chunksOf(compressed, 3, middle))));
  });

  it("reports a corrupt .zst stream", async () => {
    const compressed = zstdCompressSync(stream).subarray(0, 40);
    await expect(collect(readDbnZst(chunksOf(compressed)))).rejects.toThrow();
  });

  it("skips an unknown rtype by its length and counts it", async () => {
    const decoder = new DbnDecoder();
    const oi = statisticV3();
    const items = await collect(readDbn(chunksOf(concatBytes(header, ohlcv1m(), oi.bytes, ohlcv1m()), 130), decoder));
    expect(items.slice(1)).toStrictEqual([oi.record]);
    expect(decoder.skipped).toStrictEqual(new Map([[0x21, 2]]));
    expect(decoder.skippedCount).toBe(2);
  });

  it("reports a truncated last record with its byte offset", async () => {
    const cut = concatBytes(header, tcbbo().bytes, heartbeat().bytes.subarray(0, 100));
    const failure = collect(readDbn(chunksOf(cut, 50)));
    await expect(failure).rejects.toThrow(DbnDecodeError);
    await expect(failure).rejects.toMatchObject({
      offset: header.length + 80,
      message: `truncated record: 100 of 320 bytes present at the end of input (at byte offset ${header.length + 80})`,
    });
  });

  it("reports input that ends inside the metadata header", async () => {
    await expect(collect(readDbn(chunksOf(header.subarray(0, 60))))).rejects.toMatchObject({ offset: 60 });
  });

  it("reports a record length shorter than the record header", () => {
    const bad = tcbbo().bytes.slice();
    bad[0] = 3; // 12 bytes
    const decoder = new DbnDecoder();
    expect(() => decoder.push(concatBytes(header, tcbbo().bytes, bad))).toThrow(
      new DbnDecodeError("record length 12 is shorter than the 16-byte header", header.length + 80),
    );
  });

  it("refuses a record length of 0, which would never move past the record", () => {
    const bad = tcbbo().bytes.slice();
    bad[0] = 0;
    expect(() => new DbnDecoder().push(concatBytes(header, bad))).toThrow(
      new DbnDecodeError("record length 0 is shorter than the 16-byte header", header.length),
    );
  });

  it("refuses a known record shorter than its layout (a trade of 64 bytes, a v3 statistic of v2's 64)", () => {
    const trade = tcbbo().bytes.slice(0, 64);
    trade[0] = 16;
    expect(() => new DbnDecoder().push(concatBytes(header, trade))).toThrow(/rtype 0xc2 is 64 bytes, its DBN v3 layout needs 80/);
    const statistic = statisticV3().bytes.slice(0, 64);
    statistic[0] = 16;
    expect(() => new DbnDecoder().push(concatBytes(header, statistic))).toThrow(/rtype 0x18 is 64 bytes, its DBN v3 layout needs 80/);
  });

  it("reads items as they complete rather than at the end", () => {
    const decoder = new DbnDecoder();
    expect(decoder.push(header)).toHaveLength(1);
    expect(decoder.push(tcbbo().bytes.subarray(0, 79))).toHaveLength(0);
    expect(decoder.push(tcbbo().bytes.subarray(79))).toStrictEqual([tcbbo().record]);
  });
});
