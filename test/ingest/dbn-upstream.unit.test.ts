// Independent checks: Databento's own test files and the JSON its encoder tests expect.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { JsonLinesDecoder, readDbnFile, recordFromJson } from "../../ingest/dbn";
import { collect } from "./dbn-bytes";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/databento/test_data.${name}.dbn.zst`, import.meta.url));

describe("databento/dbn tests/data files", () => {
  it.each(["cbbo-1s", "cmbp-1", "statistics", "definition"])("%s: the v2 and v3 files decode to the same records", async (schema) => {
    const v2 = await collect(readDbnFile(fixture(`${schema}.v2`)));
    const v3 = await collect(readDbnFile(fixture(`${schema}.v3`)));
    expect(v2[0]).toMatchObject({ kind: "metadata", metadata: { version: 2, schema } });
    expect(v3[0]).toMatchObject({ kind: "metadata", metadata: { version: 3, schema } });
    expect(v2).toHaveLength(3);
    expect(v3.slice(1)).toStrictEqual(v2.slice(1));
  });

  it("cbbo-1s: the values of the first record", async () => {
    const [, first] = await collect(readDbnFile(fixture("cbbo-1s.v3")));
    expect(first).toStrictEqual({
      kind: "cbbo",
      rtype: 0xc0,
      publisherId: 1,
      instrumentId: 5482,
      tsEvent: 1_609_160_400_006_001_487n,
      tsRecv: 1_609_160_400_006_136_329n,
      price: 3720.5,
      size: 1,
      side: "A",
      flags: 128,
      levels: [{ bidPx: 3720.25, askPx: 3720.5, bidSz: 24, askSz: 11, bidPb: 1, askPb: 1 }],
    });
  });

  it("statistics and definition: the values an options chain reads", async () => {
    const [, stat] = await collect(readDbnFile(fixture("statistics.v3")));
    expect(stat).toMatchObject({ kind: "statistic", instrumentId: 146945, price: 100, quantity: null, statType: 7, updateAction: 1 });
    const [metadata, definition] = await collect(readDbnFile(fixture("definition.v3")));
    expect(metadata).toMatchObject({ metadata: { dataset: "XNAS.ITCH", symbols: ["MSFT"] } });
    expect(definition).toMatchObject({ kind: "definition", rawSymbol: "MSFT", exchange: "XNAS", instrumentClass: "K", strikePrice: null });
  });

  it("refuses the v1 file", async () => {
    await expect(collect(readDbnFile(fixture("definition.v1")))).rejects.toThrow("unsupported DBN version 1");
  });
});

describe("lines from rust/dbn/src/encode/json/sync.rs tests", () => {
  it("the StatMsg line (pretty_px), with the header's rtype set to statistics", () => {
    const line =
      `{"ts_recv":"1","hd":{"ts_event":"1658441851000000000","rtype":24,"publisher_id":1,"instrument_id":323},` +
      `"ts_ref":"2","price":"0.000000003","quantity":"0","sequence":4,"ts_in_delta":5,"stat_type":1,"channel_id":7,"update_action":1,"stat_flags":0}`;
    expect(recordFromJson(JSON.parse(line))).toStrictEqual({
      kind: "statistic",
      rtype: 24,
      publisherId: 1,
      instrumentId: 323,
      tsEvent: 1_658_441_851_000_000_000n,
      tsRecv: 1n,
      tsRef: 2n,
      price: 3e-9,
      quantity: 0,
      sequence: 4,
      tsInDelta: 5,
      statType: 1,
      channelId: 7,
      updateAction: 1,
      statFlags: 0,
    });
  });

  it("the metadata line (pretty_ts)", () => {
    const line =
      '{"version":1,"dataset":"GLBX.MDP3","schema":"ohlcv-1h","start":"2022-09-09T14:45:05.128748281Z","end":"2022-09-09T14:45:20.914876944Z","limit":null,' +
      '"stype_in":"instrument_id","stype_out":"raw_symbol","ts_out":false,"symbol_cstr_len":22,"symbols":["ESZ2"],"partial":[],"not_found":[],' +
      '"mappings":[{"raw_symbol":"ESZ2","intervals":[{"start_date":"2022-09-09","end_date":"2022-09-10","symbol":"ESH2"}]}]}\n';
    expect(new JsonLinesDecoder().push(line)).toStrictEqual([
      {
        kind: "metadata",
        metadata: {
          version: 1,
          dataset: "GLBX.MDP3",
          schema: "ohlcv-1h",
          start: 1_662_734_705_128_748_281n,
          end: 1_662_734_720_914_876_944n,
          limit: null,
          stypeIn: "instrument_id",
          stypeOut: "raw_symbol",
          tsOut: false,
          symbolCstrLen: 22,
          symbols: ["ESZ2"],
          partial: [],
          notFound: [],
          mappings: [{ rawSymbol: "ESZ2", intervals: [{ startDate: 20220909, endDate: 20220910, symbol: "ESH2" }] }],
        },
      },
    ]);
  });
});
