import { DurableObject } from "cloudflare:workers";
import { and, eq, gt, inArray, or, sql } from "drizzle-orm";
import { workerDatabase } from "../db/worker-database";
import { marketState, marketVersions, optionQuotes } from "../db/schema";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { todayInNewYork } from "../domain/calendar";
import { parseOcc } from "../domain/occ";
import { configFrom, type Bindings } from "../env";
import { minuteOf } from "../http/request-clock";
import { gexInputsOf, gexInputsQueries } from "../market/gamma-exposure";
import { optionQuoteColumns } from "../market/option-quotes";
import { marketStateQuery } from "../market/snapshot";
import { gexProfileBody } from "../routes/gamma-exposure/gex";
import { gexWindow, type GexWindowQuery } from "../routes/gamma-exposure/gex-window";
import { toOptionQuote, type OptionQuote } from "../routes/quotes-and-options/option-contract";
import { HubInterests, type StoredInterests } from "./hub-interests";
import { STREAM_LIMITS } from "./limits";
import type { GexSummary } from "./messages";

/** What a hub registers at a market shard for one subscription. */
export type MarketInterest =
  /** Scope (an option root, or an underlying for all its contracts) → the contracts wanted (null: every one of the underlying). */
  { kind: "quotes"; scopes: Record<string, string[] | null> } | { kind: "gex"; symbol: string; window: GexWindowQuery };

/** A market shard's news for one hub: the quotes of a minute its subscriptions may want, and GEX summaries that changed (by `gexKey`). */
export interface MarketBatch {
  shard: string;
  quotes: OptionQuote[];
  gex: Record<string, GexSummary>;
}

/** The key of a GEX summary: one per underlying and window, computed once for every subscriber. */
export const gexKey = (symbol: string, window: GexWindowQuery) => `${symbol}|${JSON.stringify(window)}`;

/** The state of a subscription at registration: the current quotes, or the current summary (null: the symbol is unknown). */
export type MarketState = { quotes: OptionQuote[] } | { gex: GexSummary | null };

/**
 * A shard of the state channels, `quotes` and `gex`, by underlying or option root
 * (`marketShard`): while it has subscribers it follows `market_versions` (one read every
 * `marketPollMs` whatever their number; a minute of quotes comes once a minute). When a scope it
 * serves moves, it reads that scope's new rows (`as_of` past what it sent) and recomputes each GEX
 * window of it, then calls each hub once with what its subscriptions may want. A GEX summary equal
 * to the last one sent is not sent again.
 */
export class MarketShard extends DurableObject<Bindings> {
  #name = "";
  /** The newest scope version read (`market_state.scope_version` order); null before the first subscriber. */
  #since: number | null = null;
  /** Per quote scope, the newest quote minute sent (`option_quotes.as_of`). */
  #seen = new Map<string, string>();
  #interests = new HubInterests<MarketInterest>();
  /** Per GEX key, the last summary sent (memory: after an eviction one equal summary may go again). */
  #lastGex = new Map<string, string>();
  #reading: Promise<void> | null = null;
  /** Subscriptions registering now: reads of what moved wait for the next poll. */
  #registering = 0;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = (await ctx.storage.get(["name", "since", "seen", "interests"])) as Map<string, unknown>;
      this.#name = (stored.get("name") as string | undefined) ?? "";
      this.#since = (stored.get("since") as number | undefined) ?? null;
      this.#seen = new Map(Object.entries((stored.get("seen") as Record<string, string> | undefined) ?? {}));
      this.#interests = new HubInterests(stored.get("interests") as StoredInterests<MarketInterest> | undefined);
    });
  }

  /** Registers a subscription and returns its current state, read in the same transaction as the shard's starting versions. */
  async subscribe(shard: string, hub: string, key: string, interest: MarketInterest): Promise<MarketState> {
    this.#name = shard;
    // No read of what moved runs while a subscription registers: one would move the shard's version past the new
    // scope's changes without having looked at them.
    this.#registering++;
    try {
      while (this.#reading) await this.#reading;
      return await this.#register(hub, key, interest);
    } finally {
      this.#registering--;
    }
  }

  async #register(hub: string, key: string, interest: MarketInterest): Promise<MarketState> {
    const db = workerDatabase(this.env, "market");
    const now = this.#now();
    // Where nobody followed a scope (or anything) its old marks are stale: they start again from what this read sees.
    if (this.#interests.size === 0) this.#since = null;
    const followed = new Set(this.#interests.all().flatMap(scopesOf));
    for (const scope of scopesOf(interest)) if (!followed.has(scope)) this.#seen.delete(scope);
    let result: MarketState;
    if (interest.kind === "quotes") {
      const scopes = scopesOf(interest);
      const [state, versions, rows] = await db.batch([
        db.select({ seq: marketState.scopeVersion }).from(marketState).limit(1),
        db
          .select({ scope: marketVersions.scope, asOf: marketVersions.asOf })
          .from(marketVersions)
          .where(inArray(marketVersions.scope, scopes)),
        quotesQuery(db, interest.scopes, this.#seen, true),
      ]);
      this.#since ??= state[0]?.seq ?? 0;
      // A scope's first subscriber sets where its changes start: the newest minute it has (in its version or in the rows read).
      for (const scope of scopes) {
        if (this.#seen.has(scope)) continue;
        const times = [
          ...versions.filter((v) => v.scope === scope),
          ...rows.filter((r) => r.underlying === scope || parseOcc(r.optionSymbol)?.root === scope),
        ];
        this.#seen.set(
          scope,
          times.reduce((newest, t) => maxTime(newest, isoTimestamp(t.asOf)), ""),
        );
      }
      result = { quotes: rows.map((r) => toOptionQuote(r, todayInNewYork(now), now)) };
    } else {
      // Read first: a minute applied after it is read again at the next poll, never missed.
      const [state] = await db.select({ seq: marketState.scopeVersion }).from(marketState).limit(1);
      this.#since ??= state?.seq ?? 0;
      const summary = await this.#gex(db, interest, now);
      if (summary === null) return { gex: null };
      result = { gex: summary };
    }
    this.#interests.add(hub, key, interest);
    await this.#persist();
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + STREAM_LIMITS.marketPollMs);
    return result;
  }

  async unsubscribe(hub: string, key: string): Promise<void> {
    if (this.#interests.remove(hub, key)) await this.#persist();
  }

  override async alarm(): Promise<void> {
    if (this.#interests.size === 0) return;
    await this.#follow();
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + STREAM_LIMITS.marketPollMs);
  }

  #follow(): Promise<void> {
    this.#reading ??= this.#read()
      .catch((err: unknown) => {
        console.warn(
          JSON.stringify({
            level: "warn",
            event: "stream_market_read_failed",
            shard: this.#name,
            reason: err instanceof Error ? err.message : "unknown",
          }),
        );
      })
      .finally(() => (this.#reading = null));
    return this.#reading;
  }

  /** One read of what moved, then one read of its new state, then one call per hub. */
  async #read(): Promise<void> {
    const db = workerDatabase(this.env, "market");
    const all = this.#interests.all();
    const scopes = new Set(all.flatMap(scopesOf));
    if (scopes.size === 0 || this.#since === null || this.#registering > 0) return;
    const moved = await db
      .select({ scope: marketVersions.scope, version: marketVersions.version, asOf: marketVersions.asOf })
      .from(marketVersions)
      .where(and(gt(marketVersions.version, this.#since), inArray(marketVersions.scope, [...scopes])));
    if (moved.length === 0) return;
    const changed = new Set(moved.map((m) => m.scope));
    const now = this.#now();
    // Each moved quote scope: every subscription's contracts of it together (all of them when one wants the whole underlying).
    const quoteScopes: Record<string, string[] | null> = {};
    for (const i of all) {
      if (i.kind !== "quotes") continue;
      for (const [scope, symbols] of Object.entries(i.scopes)) {
        if (!changed.has(scope)) continue;
        const held = quoteScopes[scope];
        quoteScopes[scope] = held === null || symbols === null ? null : [...new Set([...(held ?? []), ...symbols])];
      }
    }
    const gexes = new Map(
      all.filter((i): i is GexInterest => i.kind === "gex" && changed.has(i.symbol)).map((i) => [gexKey(i.symbol, i.window), i]),
    );
    const quotes =
      Object.keys(quoteScopes).length > 0
        ? (await quotesQuery(db, quoteScopes, this.#seen, false)).map((r) => toOptionQuote(r, todayInNewYork(now), now))
        : [];
    const gex: Record<string, GexSummary> = {};
    for (const [key, interest] of gexes) {
      const summary = await this.#gex(db, interest, now);
      if (summary === null) continue;
      // The snapshot time moves every minute: a summary is new when anything else in it is.
      const text = JSON.stringify({ ...summary, asOf: null });
      if (this.#lastGex.get(key) === text) continue;
      this.#lastGex.set(key, text);
      gex[key] = summary;
    }
    this.#since = Math.max(this.#since, ...moved.map((m) => m.version));
    for (const m of moved)
      if (m.scope in quoteScopes) this.#seen.set(m.scope, maxTime(this.#seen.get(m.scope) ?? "", isoTimestamp(m.asOf)));
    await this.#persist();
    if (quotes.length === 0 && Object.keys(gex).length === 0) return;
    await Promise.allSettled(
      this.#interests.byHub().map(([hub, interests, keys]) => {
        const wanted = quotes.filter((q) => interests.some((i) => wantsQuote(i, q)));
        const gexWanted = Object.fromEntries(
          Object.entries(gex).filter(([k]) => interests.some((i) => i.kind === "gex" && gexKey(i.symbol, i.window) === k)),
        );
        if (wanted.length === 0 && Object.keys(gexWanted).length === 0) return Promise.resolve();
        return this.env.STREAM_HUB.getByName(hub)
          .deliverMarket({ shard: this.#name, quotes: wanted, gex: gexWanted })
          .then((held) => this.#interests.keepOnly(hub, keys, held));
      }),
    );
  }

  /** The profile's summary as `/v1/gex/{symbol}` computes it now (its snapshot time, its minute); null for an unknown symbol. */
  async #gex(db: Database, interest: GexInterest, now: Date): Promise<GexSummary | null> {
    const [underlying, terms, contracts, state] = await db.batch([
      ...gexInputsQueries(db, interest.symbol, ...this.#window(interest, now)),
      marketStateQuery(db, [interest.symbol]),
    ]);
    const inputs = gexInputsOf([underlying, terms, contracts]);
    if (!inputs.exists) return null;
    const {
      strikes: _strikes,
      disclaimer: _disclaimer,
      ...summary
    } = gexProfileBody(interest.symbol, inputs, state[0]?.asOf ?? null, minuteOf(now));
    return summary;
  }

  #window(interest: GexInterest, now: Date): [string, string] {
    const { from, to } = gexWindow(interest.window, todayInNewYork(now));
    return [from, to];
  }

  #now(): Date {
    return configFrom(this.env).MARKET_CLOCK ?? new Date();
  }

  async #persist(): Promise<void> {
    await this.ctx.storage.put({
      name: this.#name,
      since: this.#since,
      seen: Object.fromEntries(this.#seen),
      interests: this.#interests.toJSON(),
    });
  }
}

type GexInterest = Extract<MarketInterest, { kind: "gex" }>;

/** The `market_versions` scopes an interest follows. */
const scopesOf = (i: MarketInterest): string[] => (i.kind === "quotes" ? Object.keys(i.scopes) : [i.symbol]);

/** Whether a subscription wants a quote: one of its contracts, or any contract of one of its whole underlyings. */
export function wantsQuote(interest: MarketInterest, quote: OptionQuote): boolean {
  if (interest.kind !== "quotes") return false;
  return Object.entries(interest.scopes).some(([scope, symbols]) =>
    symbols === null ? quote.underlying === scope : symbols.includes(quote.optionSymbol),
  );
}

/** The quotes of scopes: every row (`all`), or those newer than the minute each scope last sent. */
function quotesQuery(db: Database, scopes: Record<string, string[] | null>, seen: Map<string, string>, all: boolean) {
  const conditions = Object.entries(scopes).map(([scope, symbols]) => {
    const which = symbols === null ? eq(optionQuotes.underlying, scope) : inArray(optionQuotes.optionSymbol, symbols);
    const since = seen.get(scope);
    // At the millisecond the newest minute was kept at (`isoTimestamp`): a row of that very instant is not new.
    return all || !since ? which : and(which, sql`date_trunc('milliseconds', ${optionQuotes.asOf}) > ${since}::timestamptz`);
  });
  return db
    .select(optionQuoteColumns)
    .from(optionQuotes)
    .where(conditions.length === 1 ? conditions[0] : or(...conditions));
}

/** The later of two ISO instants ("" is none). */
function maxTime(a: string, b: string | null): string {
  return b !== null && (a === "" || Date.parse(b) > Date.parse(a)) ? b : a;
}
