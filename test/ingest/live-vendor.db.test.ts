import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DbnDecoder, ERROR_CODE, RTYPE, SYSTEM_CODE, type Cmbp1Record, type DbnItem, type DbnRecord } from "../../ingest/dbn";
import { followLive } from "../../ingest/sources/opra/live/follow-live";
import { LiveRefusedError, type LiveOptions } from "../../ingest/sources/opra/live/live-client";
import { cramReply, formatFields, OPRA_DATASET, parseFields, schemaOf } from "../../ingest/sources/opra/live/protocol";
import { receiveTime } from "../../ingest/sources/opra/feed-files";
import { LocalGateway, type LocalGatewayOptions } from "../../devkit/gateway/local-gateway";
import { gatewayOver as startGateway, liveClient, takeData } from "./live-fixture";
import { parseCboeTrades } from "../../ingest/sources/cboe/trades";
import type { SqlBackend } from "../../ingest/db/sql-backend";
import { formatOsi, type OccContract } from "../../src/domain/occ";
import { ingestDatabase } from "../support/ingest-database";
import { nanos, OpraStream } from "./opra-stream";

/**
 * The live client against the local gateway where it follows the vendor (the live API's "Intraday
 * replay" page; databento-rs, databento-python and databento-cpp's live protocol and mock gateway):
 * replay selected by event time, symbol mappings, one "replay completed" per replayed schema,
 * `is_last`, error records, `start_session=0`, fragmented writes.
 */
const KEY = "db-LiveVendorTestKey000000abcdef";
const call: OccContract = { root: "AAPL", expiration: "2026-03-20", strike: 200, side: "call" };
const LATER = nanos("2030-01-01T00:00:00Z");

let gateway: LocalGateway | undefined;
let abort: AbortController | undefined;
afterEach(async () => {
  abort?.abort();
  await gateway?.close();
  gateway = undefined;
});

async function gatewayOver(records: DbnRecord[], options: Partial<LocalGatewayOptions> & { clock?: { now: bigint } } = {}) {
  gateway = await startGateway(KEY, records, options.clock ?? { now: LATER }, options);
  return gateway;
}

function client(overrides: Partial<LiveOptions> = {}) {
  abort = new AbortController();
  return liveClient(gateway!, KEY, abort.signal, { backoff: { min: 1, max: 20 }, ...overrides });
}

const take = takeData;

const until = async (done: () => boolean | Promise<boolean>, ms = 20_000) => {
  const started = Date.now();
  while (!(await done())) {
    if (Date.now() - started > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Trades received together (one capture of several prints): their event times precede their shared receive time. */
function tradesReceivedTogether(): DbnRecord[] {
  const s = new OpraStream();
  s.define(call, "AAPL", "2026-03-02T11:00:00Z");
  const received = nanos("2026-03-02T14:30:00.500Z");
  for (const at of ["14:30:00.100", "14:30:00.200", "14:30:00.300"]) {
    s.trade(call, `2026-03-02T${at}Z`, 3.1, 1, 3.0, 3.2);
    (s.records.at(-1) as Cmbp1Record).tsRecv = received;
  }
  s.trade(call, "2026-03-02T14:30:01Z", 3.2, 2, 3.1, 3.3);
  return s.records;
}

describe("intraday replay, as the vendor selects it", () => {
  it("after a drop inside a group of trades sharing a receive time, the replay (by event time) brings the rest of the group, each once", async () => {
    const records = tradesReceivedTogether();
    // Cut after the group's first trade: records 0 (definition) and 1 delivered.
    let cut = true;
    await gatewayOver(records, { cutAfter: (r) => r.rtype === RTYPE.TCBBO && cut && !(cut = false) });
    const { records: live, log } = client();
    expect(await take(live, records.length)).toEqual(records);
    expect(gateway!.sessions).toHaveLength(2);
    // The replay asked from before the group's event times (its receive time − 5 min), and passed over what it had delivered.
    void live.next();
    await until(() => log.some((l) => l.event === "feed_replay_overlap"));
    expect(log).toContainEqual({ event: "feed_replay_overlap", records: 2 });
  });

  it("sends a symbol mapping before an instrument's first record, and the client hands it on", async () => {
    const records = tradesReceivedTogether();
    await gatewayOver(records);
    const { records: live } = client();
    const { value } = await live.next();
    expect(value).toMatchObject({ kind: "symbol-mapping", instrumentId: records[0]!.instrumentId, stypeOutSymbol: formatOsi(call) });
  });

  it("says each replayed schema is complete once it is, and the client calls the session replayed only after the last of them", async () => {
    const s = new OpraStream();
    s.define(call, "AAPL", "2026-03-02T11:00:00Z");
    for (let minute = 31; minute <= 40; minute++) s.quote(call, `2026-03-02T14:${minute}:00Z`, 3.0, 3.2);
    await gatewayOver(s.records, { clock: { now: nanos("2026-03-02T15:00:00Z") } });
    let taken = 0;
    let takenWhenReplayed: number | null = null;
    const { records: live, log } = client({
      schemas: ["definition", "statistics", "cbbo-1m"],
      onReplayed: () => (takenWhenReplayed = taken),
    });
    void (async () => {
      for await (const record of live) if (schemaOf(record) !== null) taken++;
    })();
    await until(() => takenWhenReplayed !== null);
    // Statistics (none) and definitions said so before the minute samples were all sent; the session caught up after them.
    const notices = log.filter((l) => l.code === SYSTEM_CODE.REPLAY_COMPLETED).map((l) => l.message);
    expect(notices).toEqual(["Finished statistics replay", "Finished definition replay", "Finished cbbo-1m replay"]);
    expect(takenWhenReplayed).toBe(11);
  });

  it("comes through writes cut into pieces of a few bytes", async () => {
    const records = tradesReceivedTogether();
    await gatewayOver(records, { fragmentBytes: 7 });
    const { records: live } = client();
    expect(await take(live, records.length)).toEqual(records);
  });
});

describe("gateway errors", () => {
  it("ends the session on a fatal error record (a deactivated key) with the gateway's message, without reconnecting", async () => {
    await gatewayOver(tradesReceivedTogether());
    gateway!.refuse({ code: ERROR_CODE.API_KEY_DEACTIVATED, err: "API key deactivated" });
    const { records: live, log } = client();
    await expect(live.next()).rejects.toThrow(LiveRefusedError);
    await expect(live.next()).resolves.toMatchObject({ done: true });
    expect(gateway!.sessions).toHaveLength(1);
    expect(log).toContainEqual({ event: "feed_gateway_error", code: ERROR_CODE.API_KEY_DEACTIVATED, message: "API key deactivated" });
  });

  it("retries an error that may pass (the gateway's internal error) with a growing backoff, not at once each time, and goes on once served", async () => {
    const records = tradesReceivedTogether();
    await gatewayOver(records);
    gateway!.refuse({ code: ERROR_CODE.INTERNAL_ERROR, err: "Internal error" });
    const { records: live } = client({ backoff: { min: 20, max: 400 } });
    const received = take(live, records.length);
    await new Promise((r) => setTimeout(r, 1_500));
    // 20, 40, 80, 160, 320, 400, 400 ms: about seven sessions in 1.5 s (at 20 ms each, about seventy).
    expect(gateway!.sessions.length).toBeLessThanOrEqual(9);
    gateway!.refuse(null);
    expect(await received).toEqual(records);
  });
});

/** One hand-driven session: the control lines, then what the gateway sent as DBN until it closed or went quiet. */
async function rawSession(lines: (challenge: string) => string[]): Promise<{ reply: Record<string, string>; items: DbnItem[] }> {
  const socket = connect({ host: "127.0.0.1", port: gateway!.port });
  const decoder = new DbnDecoder();
  const items: DbnItem[] = [];
  let text = "";
  let reply: Record<string, string> = {};
  let streaming = false;
  await new Promise<void>((resolve) => {
    const quiet = () => setTimeout(() => resolve(), 500);
    let timer = quiet();
    socket.on("data", (chunk: Buffer) => {
      clearTimeout(timer);
      timer = quiet();
      if (streaming) return void items.push(...decoder.push(chunk));
      text += chunk.toString("latin1");
      const received = text.split("\n");
      if (received.length >= 3 && !text.includes("success=")) {
        socket.write(
          formatFields({ auth: cramReply(parseFields(received[1]!).cram!, KEY), dataset: OPRA_DATASET, encoding: "dbn", ts_out: 0 }),
        );
      } else if (received.length >= 4 && text.includes("success=")) {
        reply = parseFields(received[2]!);
        streaming = true;
        const rest = Buffer.from(received.slice(3).join("\n"), "latin1");
        if (rest.length > 0) items.push(...decoder.push(rest));
        socket.write(lines(received[1]!).join(""));
      }
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  socket.destroy();
  return { reply, items };
}

describe("the local gateway's control messages", () => {
  const request = (isLast: 0 | 1, symbols = "ALL_SYMBOLS", schema = "tcbbo") =>
    formatFields({ schema, stype_in: "parent", symbols, snapshot: 0, is_last: isLast, start: 0 });

  it("takes a symbol list split over requests until one says is_last=1, and `start_session=0` as databento-python sends it", async () => {
    await gatewayOver(tradesReceivedTogether());
    const { reply, items } = await rawSession(() => [request(0, "AAPL.OPT"), request(1, "MSFT.OPT"), "start_session=0\n"]);
    expect(reply.success).toBe("1");
    const system = items.filter((i) => i.kind === "system");
    expect(system.map((i) => i.code)).toEqual([SYSTEM_CODE.SUBSCRIPTION_ACK, SYSTEM_CODE.REPLAY_COMPLETED]);
    expect(items.filter((i) => i.kind === "cmbp1")).toHaveLength(4);
  });

  it("refuses a session started while a request still waits for its is_last=1 (as the old client's four requests did)", async () => {
    await gatewayOver(tradesReceivedTogether());
    const { items } = await rawSession(() => [request(0, "ALL_SYMBOLS", "definition"), request(1), "start_session\n"]);
    expect(items.filter((i) => i.kind === "error")).toEqual([
      expect.objectContaining({ code: ERROR_CODE.INVALID_SUBSCRIPTION, err: expect.stringMatching(/is_last=0/) }),
    ]);
    expect(items.some((i) => i.kind === "cmbp1")).toBe(false);
  });
});

/**
 * Cboe DataShop's VIX trades of 2016-06-01 (test/fixtures/cboe: 259 trades) as the vendor's tcbbo
 * records, with no definitions (a trades session names its instruments by symbol mappings), each
 * received at the end of its 100-ms capture window: groups of trades share a receive time their
 * execution times precede.
 */
function vixTape(): { records: Cmbp1Record[]; symbols: Map<number, string> } {
  const { trades } = parseCboeTrades(readFileSync("test/fixtures/cboe/VIX_2016-06-01_trades_excerpt.csv", "utf8"));
  const ids = new Map<string, number>();
  const symbols = new Map<number, string>();
  const records = trades.map((t): Cmbp1Record => {
    if (!ids.has(t.optionSymbol)) {
      ids.set(t.optionSymbol, 5_000 + ids.size);
      symbols.set(ids.get(t.optionSymbol)!, formatOsi(t.contract));
    }
    const tsEvent = nanos(t.executedAt);
    return {
      kind: "cmbp1",
      rtype: RTYPE.TCBBO,
      publisherId: t.exchangeId,
      instrumentId: ids.get(t.optionSymbol)!,
      tsEvent,
      tsRecv: (tsEvent / 100_000_000n + 1n) * 100_000_000n,
      price: t.price,
      size: t.size,
      action: "T",
      side: "N",
      flags: 0,
      tsInDelta: 0,
      levels: [{ bidPx: t.bid, askPx: t.ask, bidSz: 10, askSz: 10, bidPb: t.exchangeId, askPb: t.exchangeId }],
    };
  });
  records.sort((a, b) => (a.tsRecv < b.tsRecv ? -1 : a.tsRecv > b.tsRecv ? 1 : 0));
  return { records, symbols };
}

describe("a real tape through the live path, cut at every record boundary", () => {
  const prints = async (db: SqlBackend) =>
    (
      await db.typedQuery(
        `select option_symbol, executed_at, sequence_number, price, size, bid, ask, volume, exchange_id
           from flow_prints order by executed_at, sequence_number, option_symbol`,
      )
    ).rows;

  /** The tape followed live into a database of its own; `cut`: each session is cut right after its first record never sent before. */
  async function follow(tape: ReturnType<typeof vixTape>, cut: boolean) {
    const db = await ingestDatabase();
    await db.typedQuery(
      `insert into market_state (id, version, as_of, session_date, risk_free_rate, source) values (1, 1, '2016-06-01T12:00:00Z', '2016-06-01', 0.005, 'test')`,
    );
    const sent = new Set<string>();
    const occurrences = new Map<number, Map<string, number>>();
    gateway = await LocalGateway.start({
      apiKey: KEY,
      records: async function* (from) {
        for (const r of tape.records) if (from === null || receiveTime(r) >= from) yield r;
      },
      now: () => LATER,
      rawSymbol: (id) => tape.symbols.get(id),
      // A record is known by its bytes and, for the tape's identical prints, how many of those bytes the session sent before it.
      cutAfter: (record, session) => {
        const bytes = Buffer.from(record.bytes).toString("hex");
        const seen = (occurrences.get(session) ?? occurrences.set(session, new Map()).get(session)!).get(bytes) ?? 0;
        occurrences.get(session)!.set(bytes, seen + 1);
        const key = `${bytes}#${seen}`;
        if (!cut || sent.has(key)) return false;
        sent.add(key);
        return true;
      },
    });
    abort = new AbortController();
    const log: Record<string, unknown>[] = [];
    const running = followLive(db, {
      host: "127.0.0.1",
      port: gateway.port,
      apiKey: KEY,
      feed: "databento-opra",
      log: (f) => log.push(f),
      signal: abort.signal,
      backoff: { min: 1, max: 2 },
      now: () => new Date("2016-06-01T21:00:00Z"),
    });
    const count = async () => Number((await db.typedQuery(`select count(*)::int as n from flow_prints`)).rows[0]!.n);
    await until(async () => (await count()) >= tape.records.length && (!cut || sent.size === tape.records.length), 120_000);
    // A moment more: anything sent twice would be written by now.
    await new Promise((r) => setTimeout(r, 300));
    abort.abort();
    const report = await running;
    const rows = await prints(db);
    await db.close();
    await gateway.close();
    gateway = undefined;
    return { rows, report, log };
  }

  it("stores every print of the tape once, named by symbol mappings alone, as an uncut session does", async () => {
    const tape = vixTape();
    expect(tape.records).toHaveLength(259);
    const groups = new Set(tape.records.map((r) => r.tsRecv)).size;
    expect(groups).toBeLessThan(259);
    const whole = await follow(tape, false);
    expect(whole.report.dropped).toEqual({});
    expect(whole.rows).toHaveLength(259);
    const cut = await follow(tape, true);
    // A session per record of the tape (plus the market's own).
    expect(cut.log.filter((l) => l.event === "feed_connected" && String(l.schemas) === "tcbbo").length).toBeGreaterThanOrEqual(259);
    expect(cut.report.dropped).toEqual({});
    expect(cut.rows).toEqual(whole.rows);
    // The tape's prints, each once.
    const key = (symbol: unknown, at: unknown, price: unknown, size: unknown) =>
      `${symbol}|${new Date(at as string).getTime()}|${Number(price)}|${size}`;
    expect(cut.rows.map((r) => key(r.option_symbol, r.executed_at, r.price, r.size)).sort()).toEqual(
      tape.records
        .map((r) => key(tape.symbols.get(r.instrumentId)!.replace(/ /g, ""), Number(r.tsEvent / 1_000_000n), r.price, r.size))
        .sort(),
    );
  }, 240_000);
});
