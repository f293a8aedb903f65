import { DurableObject } from "cloudflare:workers";
import { workerDatabase } from "../db/worker-database";
import type { Bindings } from "../env";
import { feedHighWaterQuery, flowTailQuery } from "../market/flow-tail";
import { HubInterests, type StoredInterests } from "./hub-interests";
import { STREAM_LIMITS } from "./limits";
import { feedPrint, type FeedPrint } from "./subscription";

/** What a hub registers at a shard for one subscription: the underlyings it wants here (null: all) and its premium floor. */
export interface ShardInterest {
  tickers: string[] | null;
  minPremium: number;
}

/**
 * One shard's prints for one hub over a range of the feed: every print of (`after`, `through`] any
 * of the hub's subscriptions on this shard may want. `after` is the `through` of the last batch this
 * shard addressed to the hub, so a hub whose subscription stands at `after` has missed nothing.
 */
export interface ShardBatch {
  shard: string;
  after: number;
  through: number;
  prints: FeedPrint[];
}

interface Stored {
  name?: string;
  position?: number;
  interests?: StoredInterests<ShardInterest>;
  lastSent?: Record<string, number>;
}

/**
 * A shard of the `flow` channel (src/streams/shard-rule.ts): it follows the feed by position for
 * the hubs whose subscriptions it holds — one read of Postgres per commit (the ingestor wakes it)
 * or per `followPollMs` (when nobody does), whatever the number of subscribers — and hands each
 * hub the prints its subscriptions may want. It keeps no socket: hubs hold those and hibernate.
 */
export class StreamShard extends DurableObject<Bindings> {
  #position: number | null = null;
  #interests = new HubInterests<ShardInterest>();
  #lastSent = new Map<string, number>();
  #following: Promise<void> | null = null;
  #again = false;
  #name = "";

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = (await ctx.storage.get(["name", "position", "interests", "lastSent"])) as Map<keyof Stored, unknown>;
      this.#name = (stored.get("name") as string | undefined) ?? "";
      this.#position = (stored.get("position") as number | undefined) ?? null;
      this.#interests = new HubInterests(stored.get("interests") as Stored["interests"]);
      this.#lastSent = new Map(Object.entries((stored.get("lastSent") as Stored["lastSent"]) ?? {}));
    });
  }

  /** Registers a subscription; returns the feed position it starts live from. */
  async subscribe(shard: string, hub: string, key: string, interest: ShardInterest): Promise<{ position: number }> {
    this.#name = shard;
    await this.#ensurePosition();
    // A read in flight selected for the interests before this one: its batch would claim a range it does not cover
    // for this subscription. So the subscription starts after it, and every later read selects for it too.
    while (this.#following) await this.#following;
    const position = this.#position as number;
    this.#interests.add(hub, key, interest);
    if (!this.#lastSent.has(hub)) this.#lastSent.set(hub, position);
    await this.#persist();
    await this.#armPoll();
    return { position };
  }

  async unsubscribe(hub: string, key: string): Promise<void> {
    if (!this.#interests.remove(hub, key)) return;
    if (!this.#interests.has(hub)) this.#lastSent.delete(hub);
    await this.#persist();
  }

  /** The ingestor committed prints: read them now rather than at the next poll. */
  wake(shard: string): void {
    this.#name ||= shard;
    if (this.#interests.size > 0) void this.#follow();
  }

  override async alarm(): Promise<void> {
    if (this.#interests.size === 0) return;
    await this.#follow();
    await this.#armPoll();
  }

  async #armPoll(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + STREAM_LIMITS.followPollMs);
  }

  async #ensurePosition(): Promise<number> {
    if (this.#position === null) {
      const [row] = await feedHighWaterQuery(workerDatabase(this.env, "market"));
      this.#position = row?.id ?? 0;
    }
    return this.#position;
  }

  /** One follower at a time; a wake during a read makes it read once more. */
  #follow(): Promise<void> {
    if (this.#following) {
      this.#again = true;
      return this.#following;
    }
    this.#following = this.#readAll()
      .catch((err: unknown) => {
        console.warn(
          JSON.stringify({
            level: "warn",
            event: "stream_shard_read_failed",
            shard: this.#name,
            reason: err instanceof Error ? err.message : "unknown",
          }),
        );
      })
      .finally(() => (this.#following = null));
    return this.#following;
  }

  async #readAll(): Promise<void> {
    const db = workerDatabase(this.env, "market");
    for (;;) {
      this.#again = false;
      const after = await this.#ensurePosition();
      const union = this.#union();
      if (union === null) return;
      const [highWater, rows] = await db.batch([feedHighWaterQuery(db), flowTailQuery(db, { after }, union, STREAM_LIMITS.followPage)]);
      const full = rows.length === STREAM_LIMITS.followPage;
      // Each statement of the batch reads its own snapshot (read committed): the prints may reach past the high
      // water read before them. Ids commit in order, so everything up to the last print read is committed too.
      const through = full ? (rows.at(-1)?.id ?? after) : Math.max(after, highWater[0]?.id ?? after, rows.at(-1)?.id ?? after);
      if (through > after) {
        this.#position = through;
        await this.#deliver(after, through, rows.map(feedPrint));
        await this.#persist();
      }
      if (!full && !this.#again) return;
    }
  }

  /** What every subscription here wants together: the union of tickers (null: all) and the lowest premium floor. */
  #union(): { tickers: string[] | null; minPremium: number } | null {
    let tickers: Set<string> | null = new Set();
    let minPremium = Infinity;
    for (const interest of this.#interests.all()) {
      minPremium = Math.min(minPremium, interest.minPremium);
      if (interest.tickers === null) tickers = null;
      else if (tickers !== null) for (const t of interest.tickers) tickers.add(t);
    }
    if (minPremium === Infinity || (tickers !== null && tickers.size === 0)) return null;
    return { tickers: tickers === null ? null : [...tickers], minPremium };
  }

  async #deliver(after: number, through: number, prints: FeedPrint[]): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const [hub, interests, keys] of this.#interests.byHub()) {
      const wanted = prints.filter((p) =>
        interests.some((i) => p.premium >= i.minPremium && (i.tickers === null || i.tickers.includes(p.ticker))),
      );
      if (wanted.length === 0) continue;
      const batch: ShardBatch = { shard: this.#name, after: this.#lastSent.get(hub) ?? after, through, prints: wanted };
      // Moved on whether the call succeeds or not: a hub that missed a batch sees the gap in the next one and reads it from Postgres.
      this.#lastSent.set(hub, through);
      sends.push(
        this.env.STREAM_HUB.getByName(hub)
          .deliver(batch)
          .then((held) => {
            if (this.#interests.keepOnly(hub, keys, held)) this.#lastSent.delete(hub);
          }),
      );
    }
    await Promise.allSettled(sends);
  }

  async #persist(): Promise<void> {
    await this.ctx.storage.put({
      name: this.#name,
      position: this.#position,
      interests: this.#interests.toJSON(),
      lastSent: Object.fromEntries(this.#lastSent),
    });
  }
}
