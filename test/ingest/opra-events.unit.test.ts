import { describe, expect, it } from "vitest";
import { readDbn, type CbboRecord, type Cmbp1Record, type DbnRecord, type DefinitionRecord, type StatisticRecord } from "../../ingest/dbn";
import { OpraEventReader, printSequence, type OpraReaderOptions } from "../../ingest/sources/opra/from-dbn";
import { OpraInstruments } from "../../ingest/sources/opra/instruments";
import { cbbo1m, definitionV3, heartbeat, metadataHeader, statisticV3, symbolMapping, tcbbo, TS_EVENT, TS_RECV } from "./dbn-fixtures";

const AAPL_CALL = { optionSymbol: "AAPL250117C00150000", underlying: "AAPL", isIndex: false, settlement: "pm" };

/** The records of a hand-written DBN v3 stream, through the real decoder. */
async function decoded(...records: Uint8Array[]): Promise<DbnRecord[]> {
  const bytes = Buffer.concat([metadataHeader(3, 0, false), ...records]);
  const out: DbnRecord[] = [];
  for await (const item of readDbn([bytes])) if (item.kind !== "metadata") out.push(item);
  return out;
}

function reader(indexes: string[] = ["SPX"], options?: OpraReaderOptions) {
  return new OpraEventReader(new OpraInstruments(new Set(indexes)), options);
}

const definition = (over: Partial<DefinitionRecord>): DefinitionRecord => ({ ...definitionV3().record, ...over });
const trade = (over: Partial<Cmbp1Record>): Cmbp1Record => ({ ...tcbbo().record, ...over });
const sample = (over: Partial<CbboRecord>): CbboRecord => ({ ...cbbo1m().record, ...over });
const statistic = (over: Partial<StatisticRecord>): StatisticRecord => ({ ...statisticV3().record, ...over });
const MINUTE = 60_000_000_000n;
const HOUR = 60n * MINUTE;

describe("OPRA records as market events", () => {
  it("lists a contract from its definition and reads its trade, minute quote and open interest", async () => {
    const [def, tr, quote, oi] = await decoded(definitionV3().bytes, tcbbo().bytes, cbbo1m().bytes, statisticV3().bytes);
    const events = reader();
    expect(events.read(def!)).toMatchObject({ ...AAPL_CALL, kind: "listed", position: { schema: "definition", tsRecv: TS_RECV } });
    expect(events.read(tr!)).toEqual({
      ...AAPL_CALL,
      contract: { root: "AAPL", expiration: "2025-01-17", side: "call", strike: 150 },
      kind: "trade",
      position: { schema: "tcbbo", tsRecv: TS_RECV },
      // 2025-01-10T14:30:00.123456789Z: milliseconds kept, the rest in the sequence.
      executedAt: new Date("2025-01-10T14:30:00.123Z"),
      sessionDate: "2025-01-10",
      sequenceNumber: (456_789 + 1_000) * 64,
      exchangeId: 30,
      price: 2.18,
      size: 5,
      bid: 2.15,
      ask: 2.2,
      underlyingPrice: null,
      printClass: "regular",
    });
    expect(events.read(quote!)).toMatchObject({
      ...AAPL_CALL,
      kind: "quote",
      position: { schema: "cbbo-1m", tsRecv: TS_RECV },
      asOf: new Date("2025-01-10T14:30:00.123Z"),
      bid: 2.15,
      ask: 2.2,
      bidSize: 12,
      askSize: 30,
      last: null,
    });
    // Published 2025-01-10 (a Friday session) for that session.
    expect(events.read(oi!)).toMatchObject({ ...AAPL_CALL, kind: "open-interest", sessionDate: "2025-01-10", openInterest: 12_345 });
    expect(events.dropped.size).toBe(0);
  });

  it("names index roots by their underlying and settles only the index's own root in the morning", () => {
    const events = reader(["SPX"]);
    const spx = events.read(definition({ instrumentId: 1, rawSymbol: "SPX   250117P04500000", underlying: "SPX", instrumentClass: "P" }));
    const spxw = events.read(definition({ instrumentId: 2, rawSymbol: "SPXW  250117P04500000", underlying: "SPX", instrumentClass: "P" }));
    expect(spx).toMatchObject({ optionSymbol: "SPX250117P04500000", underlying: "SPX", isIndex: true, settlement: "am" });
    expect(spxw).toMatchObject({ optionSymbol: "SPXW250117P04500000", underlying: "SPX", isIndex: true, settlement: "pm" });
  });

  it("ignores definitions of other instruments and delists deleted contracts", () => {
    const events = reader();
    expect(events.read(definition({ instrumentId: 9, rawSymbol: "MSFT", instrumentClass: "K" }))).toBeNull();
    expect(events.read(definition({ instrumentId: 8, rawSymbol: "not an option", instrumentClass: "C" }))).toBeNull();
    events.read(definition({}));
    expect(events.read(definition({ securityUpdateAction: "D" }))).toMatchObject({ ...AAPL_CALL, kind: "delisted" });
    expect(events.read(trade({}))).toBeNull();
    expect(events.dropped.get("unknown-instrument")).toBe(1);
    // Deleting an id never defined gives nothing.
    expect(events.read(definition({ instrumentId: 77, securityUpdateAction: "D" }))).toBeNull();
  });

  it("learns ids from a live session's symbol mappings, the weekly roots under their index", async () => {
    const [mapping] = await decoded(symbolMapping().bytes);
    const events = reader();
    expect(events.read(mapping!)).toBeNull();
    expect(events.read(trade({}))).toMatchObject({ ...AAPL_CALL, kind: "trade" });
    events.read({ ...symbolMapping().record, instrumentId: 5, stypeOutSymbol: "SPXW  250117C05000000" });
    expect(events.read(trade({ instrumentId: 5 }))).toMatchObject({ underlying: "SPX", isIndex: true, settlement: "pm" });
  });

  it("counts records that give no trade instead of failing", () => {
    const events = reader();
    events.read(definition({}));
    expect(events.read(trade({ action: "A" }))).toBeNull();
    expect(events.read(trade({ size: 0 }))).toBeNull();
    expect(events.read(trade({ price: null }))).toBeNull();
    expect(events.read(trade({ tsRecv: TS_EVENT + (1n << 47n) }))).toBeNull();
    expect(events.read(trade({ instrumentId: 42 }))).toBeNull();
    expect(Object.fromEntries(events.dropped)).toEqual({ "not-a-trade": 1, malformed: 2, "implausible-time": 1, "unknown-instrument": 1 });
  });

  it("keeps an absent side of the NBBO null and a zero bid zero", () => {
    const events = reader();
    events.read(definition({}));
    const level = tcbbo().record.levels[0];
    expect(events.read(trade({ levels: [{ ...level, bidPx: 0, askPx: null }] }))).toMatchObject({ bid: 0, ask: null });
    expect(events.read(trade({ tsRecv: TS_RECV + 1n, levels: [{ ...level, bidPx: null, askPx: 0 }] }))).toMatchObject({
      bid: null,
      ask: null,
    });
  });

  it("gives open interest for the session it is published before, and nothing for other statistics", () => {
    const events = reader();
    events.read(definition({}));
    const stat = (over: Partial<StatisticRecord>) => events.read({ ...statisticV3().record, ...over });
    // Saturday 2025-01-11 06:30 ET → Monday's session.
    expect(stat({ tsRecv: BigInt(Date.parse("2025-01-11T11:30:00Z")) * 1_000_000n })).toMatchObject({ sessionDate: "2025-01-13" });
    expect(stat({ statType: 1 })).toBeNull();
    expect(stat({ updateAction: 2 })).toBeNull();
    expect(events.dropped.size).toBe(0);
    expect(stat({ quantity: null })).toBeNull();
    expect(events.dropped.get("malformed")).toBe(1);
  });
});

describe("records no column or clock can take", () => {
  /** A reader that knows the fixtures' contract, and what it was told of each record dropped. */
  function bounded(options: OpraReaderOptions = {}) {
    const told: [string, string][] = [];
    const events = reader(["SPX"], { ...options, onDropped: (reason, _record, why) => told.push([reason, why]) });
    events.read(definition({}));
    return { events, told };
  }

  it("drops a trade whose size or venue no column holds (flow_prints: size int4, exchange_id int2)", () => {
    const { events, told } = bounded();
    expect(events.read(trade({ size: 2 ** 31 - 1 }))).toMatchObject({ kind: "trade", size: 2 ** 31 - 1 });
    expect(events.read(trade({ tsRecv: TS_RECV + 1n, size: 2 ** 31 }))).toBeNull();
    expect(events.read(trade({ tsRecv: TS_RECV + 2n, size: 1.5 }))).toBeNull();
    expect(events.read(trade({ tsRecv: TS_RECV + 3n, publisherId: 32_767 }))).toMatchObject({ kind: "trade", exchangeId: 32_767 });
    expect(events.read(trade({ tsRecv: TS_RECV + 4n, publisherId: 32_768 }))).toBeNull();
    expect(Object.fromEntries(events.dropped)).toEqual({ "out-of-range": 3 });
    expect(told.map(([, why]) => why)).toEqual([
      "size 2147483648 (flow_prints.size is an int4)",
      "size 1.5 (flow_prints.size is an int4)",
      "publisher_id 32768 (flow_prints.exchange_id is an int2)",
    ]);
  });

  it("drops open interest over an int4, and any record received past what a feed position (an int8) holds", () => {
    const { events } = bounded();
    expect(events.read(statistic({ quantity: 2 ** 31 - 1 }))).toMatchObject({ openInterest: 2 ** 31 - 1 });
    expect(events.read(statistic({ quantity: 2 ** 31 }))).toBeNull();
    const late = 1n << 63n;
    expect(events.read(trade({ tsEvent: late - 1_000_000n, tsRecv: late }))).toBeNull();
    expect(events.read(sample({ tsEvent: late, tsRecv: late }))).toBeNull();
    expect(events.read(definition({ tsRecv: late }))).toBeNull();
    expect(events.read(trade({ tsRecv: -1n, tsEvent: -1n }))).toBeNull();
    expect(events.dropped.get("out-of-range")).toBe(5);
  });

  it("drops a definition whose text PostgreSQL cannot hold (U+0000, which JSON lines can carry), learning nothing from it", () => {
    const { events } = bounded();
    expect(events.read(definition({ instrumentId: 3, underlying: "AA\u0000PL" }))).toBeNull();
    expect(events.read(trade({ instrumentId: 3 }))).toBeNull();
    expect(Object.fromEntries(events.dropped)).toEqual({ "out-of-range": 1, "unknown-instrument": 1 });
  });

  it("drops a trade executed more than 5 min before or 1 min after its receipt (one stamped 15 h ahead would open the next session)", () => {
    const { events, told } = bounded();
    const at = (offset: bigint, i: bigint) => trade({ tsEvent: TS_RECV + offset, tsRecv: TS_RECV + i });
    expect(events.read(at(15n * HOUR, 0n))).toBeNull();
    expect(events.read(at(-6n * MINUTE, 1n))).toBeNull();
    expect(events.read(at(2n * MINUTE, 2n))).toBeNull();
    expect(events.read(at(-4n * MINUTE, 3n))).toMatchObject({ kind: "trade" });
    expect(events.read(at(MINUTE - 1n, 4n))).toMatchObject({ kind: "trade" });
    expect(Object.fromEntries(events.dropped)).toEqual({ "implausible-time": 3 });
    expect(told[0]).toEqual([
      "implausible-time",
      "executed 2025-01-11T05:30:00.123Z, received 2025-01-10T14:30:00.123Z (at most 5 min before, 1 min after)",
    ]);
  });

  it("drops a minute sample whose last trade is after its minute, and keeps one whose last trade is hours before or undefined", () => {
    const { events } = bounded();
    expect(events.read(sample({ tsEvent: TS_RECV + 2n * MINUTE }))).toBeNull();
    expect(events.read(sample({ tsEvent: TS_RECV - 6n * HOUR }))).toMatchObject({ kind: "quote" });
    expect(events.read(sample({ tsEvent: 0xffff_ffff_ffff_ffffn }))).toMatchObject({ kind: "quote" });
    expect(Object.fromEntries(events.dropped)).toEqual({ "implausible-time": 1 });
  });

  it("live, drops records received more than 5 min ahead of the wall clock or 25 h behind it, and no heartbeat so stamped moves a clock", () => {
    const wall = new Date(Number(TS_RECV / 1_000_000n));
    const { events } = bounded({ now: () => wall });
    expect(events.read(trade({ tsEvent: TS_RECV + 4n * MINUTE, tsRecv: TS_RECV + 4n * MINUTE }))).toMatchObject({ kind: "trade" });
    expect(events.read(trade({ tsEvent: TS_RECV + 6n * MINUTE, tsRecv: TS_RECV + 6n * MINUTE }))).toBeNull();
    expect(events.read(sample({ tsEvent: TS_RECV + 3n * HOUR, tsRecv: TS_RECV + 3n * HOUR }))).toBeNull();
    // Published three days on: it would be staged for a session after today's and switched in over it.
    expect(events.read(statistic({ tsRecv: TS_RECV + 72n * HOUR }))).toBeNull();
    expect(events.read(definition({ instrumentId: 4, tsRecv: TS_RECV - 26n * HOUR }))).toBeNull();
    expect(events.read(statistic({ tsRecv: TS_RECV - 24n * HOUR }))).toMatchObject({ kind: "open-interest" });
    const beat = (at: bigint) => ({ ...heartbeat().record, tsEvent: at });
    expect(events.read(beat(TS_RECV + HOUR))).toBeNull();
    expect(events.timely(beat(TS_RECV + HOUR))).toBe(false);
    expect(events.timely(beat(TS_RECV + MINUTE))).toBe(true);
    expect(Object.fromEntries(events.dropped)).toEqual({ "implausible-time": 5 });
    // A replay has no wall clock: the same records are the file's.
    const replay = bounded();
    expect(replay.events.read(statistic({ tsRecv: TS_RECV + 72n * HOUR }))).toMatchObject({ kind: "open-interest" });
    expect(replay.events.timely(beat(TS_RECV + HOUR))).toBe(true);
  });
});

describe("print sequence numbers", () => {
  it("tell apart the trades of one contract in one millisecond, the same on every replay", () => {
    const burst = [
      trade({ tsEvent: TS_EVENT, tsRecv: TS_RECV }),
      trade({ tsEvent: TS_EVENT, tsRecv: TS_RECV }),
      trade({ tsEvent: TS_EVENT + 1n, tsRecv: TS_RECV }),
      trade({ tsEvent: TS_EVENT, tsRecv: TS_RECV + 7n }),
      trade({ tsEvent: TS_EVENT, tsRecv: TS_RECV + 7n, instrumentId: 2 }),
    ];
    const sequences = () => {
      const events = reader();
      events.read(definition({}));
      events.read(definition({ instrumentId: 2, rawSymbol: "AAPL  250117P00150000", instrumentClass: "P" }));
      return burst.map((r) => {
        const e = events.read(r);
        return e?.kind === "trade" ? `${e.optionSymbol}|${e.executedAt.getTime()}|${e.sequenceNumber}` : null;
      });
    };
    const first = sequences();
    expect(new Set(first).size).toBe(burst.length);
    expect(sequences()).toEqual(first);
  });

  it("is the receive delay after the trade's millisecond, in ns, times 64 plus the ordinal", () => {
    const ms = 1_736_519_400_123n * 1_000_000n;
    expect(printSequence(ms + 456_789n, ms + 2_000_000n, 0)).toBe(2_000_000 * 64);
    expect(printSequence(ms, ms + 5n, 3)).toBe(5 * 64 + 3);
    // A receive time before the event (clock skew) still gives a distinct number.
    expect(printSequence(ms, ms - 5n, 0)).toBe(-5 * 64);
    expect(printSequence(ms, ms + (1n << 46n), 0)).toBeNull();
    expect(printSequence(ms, ms, 64)).toBeNull();
    expect(Number.isSafeInteger(printSequence(ms, ms + (1n << 46n) - 1n, 63))).toBe(true);
  });
});
