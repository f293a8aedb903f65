import { flowBucketShard } from "../src/streams/shard-rule";
import type { ServerMessage } from "../src/streams/messages";
import { STREAM_LIMITS } from "../src/streams/limits";
import type { SqlBackend } from "../ingest/db/sql-backend";
import { percentile, until } from "./measure";

/** What one benchmark client subscribes to. */
type Subscription =
  | { channel: "flow"; filters: { tickers?: string; minPremium: number } }
  | { channel: "netflow"; filters: { symbol: string; minPremium: number } }
  | { channel: "quotes"; filters: { symbols: string } }
  | { channel: "gex"; filters: { symbol: string } };

/** The mix of the issue's benchmark, per 10 clients: market-wide flow with a floor, 1–20 tickers, quote sets, net flow, GEX. */
const MIX: Subscription["channel"][] = ["flow", "flow", "flow", "flow", "flow", "flow", "quotes", "netflow", "netflow", "gex"];
/** The floor of the market-wide flow clients, USD. */
const MARKET_WIDE_FLOOR = 50_000;
/** The floor of the clients of 1–20 tickers: `/v1/flow`'s default, USD. */
const TICKERS_FLOOR = 10_000;
/** Contracts of a quote set. */
const QUOTE_SET = 500;

interface Client {
  subscription: Subscription;
  key: string;
  /** The client's number: its simulated address. */
  index: number;
  socket: WebSocket;
  /** Times it was cut and resumed from its cursor. */
  resumed: number;
  /** The subscription's starting cursor, and the last one taken. */
  first?: string;
  last?: string;
  /** The last data message's `seq`: each must be the one before plus one. */
  seq: number;
  seqGaps: number;
  prints: number;
  duplicates: number;
  /** Each print's key → the connection (0: the first) and message that brought it. */
  seen: Map<string, [conn: number, seq: number]>;
  /** The first few duplicates: the key, then where each copy came from. */
  duplicateSamples: string[];
  /** Per flow print: [trade time, arrival], epoch ms. */
  arrivals: [number, number][];
  messages: number;
  closed?: { code: number; reason: string };
  errors: string[];
}

/** The positions a stream cursor carries (its payload, read without the secret: the benchmark only counts). */
function positions(cursor: string): Record<string, number> {
  const payload = cursor.split(".")[0]!;
  const json = Buffer.from(payload, "base64url").toString("utf8");
  return (JSON.parse(json) as [{ p: Record<string, number> }, string])[0].p;
}

const printKey = (p: { optionSymbol: string; executedAt: string; volume: number; size: number; price: number }) =>
  `${p.optionSymbol}|${p.executedAt}|${p.volume}|${p.size}|${p.price}`;

/**
 * The stream clients of `npm run bench -- stream`: `count` WebSockets on `/v1/stream` (5 an account,
 * the cap), each with one subscription of the mix, acknowledging as they read. They record every
 * flow print's arrival, check every connection's `seq` and every print's identity (no gap, no
 * duplicate), and at the end count in Postgres the prints each flow subscription's cursors span.
 */
export class StreamClients {
  readonly clients: Client[] = [];

  private constructor(private readonly url: string) {}

  /** Opens the clients over `keys` (each key's account holds at most the stream cap), choosing tickers and contracts from the market. */
  static async open(url: string, keys: string[], count: number, backend: SqlBackend): Promise<StreamClients> {
    const { rows: names } = await backend.typedQuery(
      `select underlying from option_quotes group by underlying order by count(*) desc limit 200`,
    );
    const tickers = names.map((r) => r.underlying as string);
    const { rows: contracts } = await backend.typedQuery(
      `select option_symbol from option_quotes where underlying = $1 order by expiration, strike limit $2`,
      [tickers[0], QUOTE_SET * 4],
    );
    const set = (i: number) =>
      contracts
        .slice((i * QUOTE_SET) % Math.max(1, contracts.length - QUOTE_SET), undefined)
        .slice(0, QUOTE_SET)
        .map((r) => r.option_symbol as string)
        .join(",");
    const run = new StreamClients(url);
    const perKey = STREAM_LIMITS.streamsPerAccount;
    if (keys.length * perKey < count) throw new Error(`stream benchmark: ${count} clients need ${Math.ceil(count / perKey)} accounts`);
    for (let i = 0; i < count; i++) {
      const kind = MIX[i % MIX.length]!;
      const ticker = tickers[(i * 7) % tickers.length]!;
      const subscription: Subscription =
        kind === "flow"
          ? i % 2 === 0
            ? { channel: "flow", filters: { minPremium: MARKET_WIDE_FLOOR } }
            : { channel: "flow", filters: { tickers: pick(tickers, 1 + (i % 20), i).join(","), minPremium: TICKERS_FLOOR } }
          : kind === "quotes"
            ? { channel: "quotes", filters: { symbols: set(i) } }
            : kind === "netflow"
              ? { channel: "netflow", filters: { symbol: ticker, minPremium: 0 } }
              : { channel: "gex", filters: { symbol: ticker } };
      run.clients.push(await run.connect(keys[Math.floor(i / perKey)]!, subscription, i));
    }
    await until(
      () => run.clients.every((c) => c.first !== undefined || c.errors.length > 0 || c.messages > 0),
      60_000,
      "every stream client's subscription",
    );
    return run;
  }

  private connect(key: string, subscription: Subscription, i: number): Promise<Client> {
    const client: Client = {
      subscription,
      key,
      index: i,
      resumed: 0,
      socket: null as unknown as WebSocket,
      seq: 0,
      seqGaps: 0,
      prints: 0,
      duplicates: 0,
      seen: new Map(),
      duplicateSamples: [],
      arrivals: [],
      messages: 0,
      errors: [],
    };
    return this.attach(client, null);
  }

  /** A socket for the client, subscribing from `since` (a resumed client) or live. */
  private attach(client: Client, since: string | null): Promise<Client> {
    // A simulated client address each (a header, RFC 2544's benchmark range): the per-address key-lookup bound is not what is measured.
    const i = client.index;
    const headers = { Authorization: `Bearer ${client.key}`, "CF-Connecting-IP": `198.19.${(i >> 8) & 255}.${i & 255}` };
    const socket = new WebSocket(`${this.url.replace(/^http/, "ws")}/v1/stream`, { headers } as never);
    client.socket = socket;
    // A new stream numbers its messages from 1.
    client.seq = 0;
    socket.addEventListener("message", (event) => {
      const at = Date.now();
      const message = JSON.parse(String(event.data)) as ServerMessage;
      if (message.type === "subscribed") client.first ??= message.cursor;
      else if (message.type === "error") client.errors.push(`${message.error}: ${message.message}`);
      // What was sent reaches this far: a quiet subscription's span is checked too.
      else if (message.type === "heartbeat" && message.cursors.bench) client.last = message.cursors.bench;
      if (!("seq" in message)) return;
      client.messages++;
      if (message.seq !== client.seq + 1) client.seqGaps++;
      client.seq = message.seq;
      socket.send(JSON.stringify({ type: "ack", seq: message.seq }));
      if (message.type === "netflow") client.last = message.cursor;
      if (message.type !== "flow") return;
      client.last = message.cursor;
      for (const p of message.prints) {
        const key = printKey(p);
        const before = client.seen.get(key);
        if (before) {
          client.duplicates++;
          if (client.duplicateSamples.length < 3)
            client.duplicateSamples.push(
              `${key} first conn ${before[0]} seq ${before[1]}, again conn ${client.resumed} seq ${message.seq}`,
            );
        }
        client.seen.set(key, [client.resumed, message.seq]);
        client.prints++;
        client.arrivals.push([Date.parse(p.executedAt), at]);
      }
    });
    socket.addEventListener("close", (event) => (client.closed = { code: event.code, reason: event.reason }));
    return new Promise((resolve, reject) => {
      socket.addEventListener("open", () => {
        socket.send(JSON.stringify({ type: "subscribe", id: "bench", ...client.subscription, ...(since ? { since } : {}) }));
        resolve(client);
      });
      socket.addEventListener("error", () => reject(new Error("stream benchmark: a client could not connect")));
    });
  }

  /**
   * Cuts `count` flow clients once each at random moments of the next `windowMs` and resubscribes
   * them on a new stream from their last cursor, as a client whose connection dropped does.
   */
  churn(count: number, windowMs: number): void {
    const flow = this.clients.filter((c) => c.subscription.channel === "flow");
    for (const client of flow.slice(0, count)) {
      setTimeout(() => {
        const cursor = client.last ?? client.first ?? null;
        client.socket.close(3000, "cut by the benchmark");
        // The hub may not have seen the close yet (the account's streams at the cap): try again, as a client would.
        const resume = (attempt: number) =>
          this.attach(client, cursor).then(
            () => void client.resumed++,
            (e: Error) => (attempt < 5 ? setTimeout(() => resume(attempt + 1), 1_000) : client.errors.push(e.message)),
          );
        setTimeout(() => resume(0), 200 + Math.random() * 1_800);
      }, Math.random() * windowMs);
    }
  }

  close(): void {
    for (const c of this.clients) c.socket.close(1000, "done");
  }

  /**
   * Prints the figures: delivery latency of flow prints after their batch committed (`committedAt`:
   * the wall time the trade's batch was written, null when unknown), gaps and duplicates per
   * client, and each flow subscription's received prints against Postgres's count between its cursors.
   */
  async report(backend: SqlBackend, committedAt: (tradeMs: number) => number | null): Promise<void> {
    const latencies: number[] = [];
    for (const c of this.clients) {
      for (const [trade, arrival] of c.arrivals) {
        const committed = committedAt(trade);
        if (committed !== null) latencies.push(arrival - committed);
      }
    }
    latencies.sort((a, b) => a - b);
    let missing = 0;
    let extra = 0;
    let checked = 0;
    for (const c of this.clients) {
      if (c.subscription.channel !== "flow" || !c.first || !c.last) continue;
      const from = positions(c.first);
      const to = positions(c.last);
      const tickers = c.subscription.filters.tickers?.split(",") ?? null;
      let expected = 0;
      for (const shard of Object.keys(to)) {
        const onShard = tickers === null ? null : tickers.filter((t) => flowBucketShard(t) === shard);
        const { rows } = await backend.typedQuery(
          `select count(*)::int as n from flow_prints where id > $1 and id <= $2 and premium >= $3 and print_class <> 'canceled'
             and ($4::text[] is null or ticker = any($4::text[]))`,
          [from[shard] ?? 0, to[shard], c.subscription.filters.minPremium, onShard],
        );
        expected += rows[0]!.n as number;
      }
      checked++;
      if (c.prints < expected) missing += expected - c.prints;
      if (c.prints > expected) extra += c.prints - expected;
    }
    const count = (channel: Subscription["channel"]) => this.clients.filter((c) => c.subscription.channel === channel);
    const sum = (cs: Client[], f: (c: Client) => number) => cs.reduce((n, c) => n + f(c), 0);
    const closed = this.clients.filter((c) => c.closed && c.closed.code !== 1000 && c.closed.code !== 3000);
    console.log(
      `\nstreams: ${this.clients.length} clients (${(["flow", "netflow", "quotes", "gex"] as const).map((ch) => `${count(ch).length} ${ch}`).join(", ")}); ` +
        `${sum(this.clients, (c) => c.messages)} data messages, ${sum(this.clients, (c) => c.prints)} prints delivered`,
    );
    console.log(
      `  a print after its batch committed: p50 ${ms(percentile(latencies, 50))} p99 ${ms(percentile(latencies, 99))} ` +
        `(targets ≤ 250 ms, ≤ 1 s; ${latencies.length} deliveries)`,
    );
    console.log(
      `  resumed from a cursor: ${sum(this.clients, (c) => c.resumed)} reconnects of ${this.clients.filter((c) => c.resumed > 0).length} clients\n` +
        `  sequences: ${sum(this.clients, (c) => c.seqGaps)} seq gaps, ${sum(this.clients, (c) => c.duplicates)} duplicate prints; ` +
        `against Postgres between each flow client's cursors (${checked} clients): ${missing} prints missing, ${extra} extra (targets 0)`,
    );
    if (closed.length > 0)
      console.log(
        `  closed by the server: ${closed.length} (${[...new Set(closed.map((c) => `${c.closed!.code} ${c.closed!.reason}`))].join(", ")})`,
      );
    const duplicated = this.clients.filter((c) => c.duplicates > 0);
    if (duplicated.length > 0) {
      const kinds = (c: Client) =>
        `${c.subscription.channel === "flow" && c.subscription.filters.tickers ? "tickers" : "market-wide"}${c.resumed > 0 ? ", resumed" : ""}`;
      console.log(
        `  duplicates in ${duplicated.length} clients: ${Object.entries(tallied(duplicated.map(kinds)))
          .map(([k, n]) => `${n} ${k}`)
          .join("; ")}; e.g. ${duplicated
          .flatMap((c) => c.duplicateSamples)
          .slice(0, 4)
          .join(" | ")}`,
      );
    }
    const errors = this.clients.flatMap((c) => c.errors);
    if (errors.length > 0) console.log(`  refused: ${errors.length} (${[...new Set(errors)].slice(0, 3).join("; ")})`);
  }
}

function tallied(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}

/** `n` distinct tickers from the list, starting at a place of `seed`. */
function pick(tickers: string[], n: number, seed: number): string[] {
  return Array.from({ length: n }, (_, k) => tickers[(seed * 13 + k * 17) % tickers.length]!).filter((t, k, all) => all.indexOf(t) === k);
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : "–");
