import { DurableObject } from "cloudflare:workers";
import { rawSql } from "../db/client";
import { configFrom, type Bindings } from "../env";
import { FEED_POSITIONS, feedLags } from "../market/feed-lag";
import type { StatusReport } from "./messages";
import { HubInterests, type StoredInterests } from "./hub-interests";
import { sessionStatus } from "./session-status";

/** How often a status shard with subscribers reads the feed's positions and tells its hubs. */
export const STATUS_INTERVAL_MS = 5_000;
const READ_TIMEOUT_MS = 2_000;

/**
 * A shard of the `status` channel (`statusShard`): while it has subscribers, one read of
 * `feed_positions` every `STATUS_INTERVAL_MS`, whatever their number, and one call to each hub with
 * the report. A subscriber gets the current report at once.
 */
export class StatusShard extends DurableObject<Bindings> {
  /** Hub → its subscription keys here (a status subscription wants nothing more). */
  #hubs = new HubInterests<true>();

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.#hubs = new HubInterests(await ctx.storage.get<StoredInterests<true>>("interests"));
    });
  }

  async subscribe(hub: string, key: string): Promise<StatusReport> {
    this.#hubs.add(hub, key, true);
    await this.#persist();
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + STATUS_INTERVAL_MS);
    return this.#report();
  }

  async unsubscribe(hub: string, key: string): Promise<void> {
    if (this.#hubs.remove(hub, key)) await this.#persist();
  }

  override async alarm(): Promise<void> {
    if (this.#hubs.size === 0) return;
    await this.ctx.storage.setAlarm(Date.now() + STATUS_INTERVAL_MS);
    const report = await this.#report();
    await Promise.allSettled(
      this.#hubs.byHub().map(([hub, , keys]) =>
        this.env.STREAM_HUB.getByName(hub)
          .deliverStatus(report)
          .then((held) => this.#hubs.keepOnly(hub, keys, held)),
      ),
    );
    await this.#persist();
  }

  /** The session's phase and each feed's lag; with the database away, the feeds are empty (the phase still tells the client why it hears nothing). */
  async #report(): Promise<StatusReport> {
    const now = new Date();
    let feeds: StatusReport["feeds"] = [];
    try {
      feeds = feedLags(
        (await rawSql(configFrom(this.env).MARKET_DATABASE_URL, READ_TIMEOUT_MS).query(FEED_POSITIONS)) as Record<string, unknown>[],
        now.getTime(),
      );
    } catch {
      // Reported as no feed: the next read tries again.
    }
    return { time: now.toISOString(), session: sessionStatus(now), feeds };
  }

  async #persist(): Promise<void> {
    await this.ctx.storage.put("interests", this.#hubs.toJSON());
  }
}
