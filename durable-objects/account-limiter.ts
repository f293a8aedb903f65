import { DurableObject } from "cloudflare:workers";
import { evaluateEntitlement, type EntitlementSnapshot } from "../src/domain/entitlement";
import type { Bindings } from "../src/env";
import {
  LEASE_MS,
  SNAPSHOT_MAX_AGE_MS,
  UNKNOWN_KEY_RELOAD_MS,
  type AdmitRequest,
  type AdmitResult,
  type EntitlementView,
  type KeyCheck,
  type KeyStanding,
  type MeterRequest,
  type MeterResult,
  type RateState,
  type UsageView,
} from "../src/limits/admission";
import { Leases } from "./leases";
import { gcra, perMinuteQuota, type GcraQuota, type GcraResult } from "./gcra";
import { limitsFor, type PlanLimits } from "../src/domain/plans";
import { usageDay } from "../src/limits/usage-day";
import { controlDatabaseOf, type ControlDatabase } from "./control-database";
import { TypedStorage } from "./typed-storage";

/** Day counts reach Postgres (`usage_daily`) at most this long after a request, in one write per account. */
export const USAGE_FLUSH_MS = 60_000;

interface DayCount {
  date: string;
  count: number;
}

/** What the limiter keeps in storage: its memory, written through so a restarted object picks up where it left off. */
interface LimiterStorage extends Record<string, unknown> {
  tat: number | null;
  snapshot: EntitlementSnapshot;
  snapshotAt: number;
  day: DayCount;
  leases: [leaseId: string, expiresAt: number][];
  /** ET day → count not yet written to `usage_daily`. */
  unflushed: Record<string, number>;
  accountId: number;
}

/** Hot-path writes do not hold the reply for disk: a lost write only forgets a little rate-limit history. */
const UNCONFIRMED = { allowUnconfirmed: true } as const;

/** What `admit` and `meter` refuse before the in-flight cap. */
type Refusal = Exclude<AdmitResult, { kind: "too_many_concurrent" } | { kind: "admitted" }>;
/** The bucket charged: what the rest of the decision needs. */
interface Taken {
  kind: "taken";
  rate: RateState;
  entitlement: EntitlementView;
  limits: PlanLimits;
}

/** A key's standing in a snapshot: an unlisted id at or below the highest ever issued is revoked (or deleted) for good, which the edge may remember. */
function keyState(snapshot: EntitlementSnapshot, keyId: number): KeyCheck {
  if (snapshot.activeKeyIds.includes(keyId)) return { kind: "active" };
  return keyId <= (snapshot.maxKeyId ?? 0) ? { kind: "revoked" } : { kind: "unknown_key" };
}

/**
 * Per-account limits and state, one instance per account (`getByName(accountId)`): the GCRA
 * bucket shared by all the account's keys, the in-flight leases, the ET-day request counter and
 * the entitlement snapshot. The object's memory is the source of truth while it lives; storage
 * lets a restarted object pick up where it left off. Calls interleave only at an `await`: those
 * in `admit` (snapshot loads) come before the bucket is read, so reading and writing the bucket,
 * the leases and the day count happens in one uninterrupted step. Snapshots are versioned: a
 * push or a load never replaces a newer one, whatever order they arrive in.
 */
export class AccountLimiter extends DurableObject<Bindings> {
  #tat: number | null = null;
  #snapshot: EntitlementSnapshot | null = null;
  /** When the snapshot was last known current (pushed or read from Postgres), epoch ms. */
  #snapshotAt = 0;
  /** The one snapshot load under way, shared by every admit (and background refresh) that needs it. */
  #loading: Promise<EntitlementSnapshot> | null = null;
  /** When the last load started, epoch ms: unlisted keys and aged snapshots start at most one a second. */
  #loadStartedAt = 0;
  #day: DayCount = { date: "", count: 0 };
  #leases = new Leases();
  #alarmAt: number | null = null;
  /** ET day → count not yet written to `usage_daily` (absolute counts; the account id to write them under). */
  #unflushed: Record<string, number> = {};
  #accountId: number | null = null;
  #flushAt: number | null = null;
  readonly #control: ControlDatabase;
  readonly #stored: TypedStorage<LimiterStorage>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.#control = controlDatabaseOf(env);
    this.#stored = new TypedStorage(ctx.storage);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = await this.#stored.read(["tat", "snapshot", "snapshotAt", "day", "leases", "unflushed", "accountId"]);
      this.#tat = stored.tat ?? null;
      this.#snapshot = stored.snapshot ?? null;
      this.#snapshotAt = stored.snapshotAt ?? 0;
      this.#day = stored.day ?? this.#day;
      this.#leases = new Leases(stored.leases ?? []);
      this.#unflushed = stored.unflushed ?? {};
      this.#accountId = stored.accountId ?? null;
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** Decides one request: key revocation, entitlement, rate limit, in-flight cap, daily count. */
  async admit(request: AdmitRequest): Promise<AdmitResult> {
    const snapshot = await this.#currentSnapshot(request);
    const now = Date.now();
    const taken = this.#take(snapshot, request, 1, now);
    if (taken.kind !== "taken") return taken;
    const { rate, entitlement, limits } = taken;
    this.#sweep(now);
    if (this.#leases.size >= limits.concurrency) {
      void this.#stored.write({ tat: this.#tat }, UNCONFIRMED);
      return { kind: "too_many_concurrent", rate };
    }
    const leaseId = this.#leases.acquire(now, LEASE_MS);
    const usage = this.#count(request.accountId, 1, now);
    return { kind: "admitted", rate, leaseId, entitlement, usage };
  }

  /**
   * Counts `cost` requests as `admit` does (key, entitlement, rate limit, daily count) but takes no
   * in-flight slot: `/mcp`'s own messages, answered at once, while each tool call is admitted as
   * the REST request it runs. All or nothing: a refused cost takes no token.
   */
  async meter(request: MeterRequest): Promise<MeterResult> {
    const snapshot = await this.#currentSnapshot(request);
    const now = Date.now();
    const taken = this.#take(snapshot, { ...request, requireEntitlement: true }, request.cost, now);
    if (taken.kind !== "taken") return taken;
    const usage = this.#count(request.accountId, request.cost, now);
    return { kind: "metered", rate: taken.rate, entitlement: taken.entitlement, usage };
  }

  /**
   * Whether a key may still hold a stream (`src/streams`): its revocation and its account's
   * entitlement, as `meter` decides them, without counting anything. The account's stream hub asks
   * this at every heartbeat, so a revoked key or a lapsed account loses its streams within one.
   */
  async standing(request: Omit<MeterRequest, "cost">): Promise<KeyStanding> {
    const snapshot = await this.#currentSnapshot(request);
    const key = keyState(snapshot, request.keyId);
    if (key.kind !== "active") return key;
    const entitlement = entitlementView(snapshot, Date.now());
    return entitlement.entitled ? { kind: "active" } : { kind: "not_entitled", entitlement };
  }

  /** Admitted requests of the current ET day (the dashboard's "requests today"). */
  requestsToday(): { date: string; today: number } {
    const { date } = usageDay(Date.now());
    return { date, today: this.#day.date === date ? this.#day.count : 0 };
  }

  /** Frees an in-flight slot; releasing twice, or after expiry, is harmless. */
  release(leaseId: string): void {
    if (this.#leases.release(leaseId)) void this.#stored.write({ leases: this.#leases.entries() }, UNCONFIRMED);
  }

  /** The control plane calls this after every committed change; an older version than the one held is ignored. */
  async pushSnapshot(snapshot: EntitlementSnapshot): Promise<void> {
    await this.#keep(snapshot);
  }

  /**
   * The snapshot to decide with, with no I/O unless it must: loaded when the object has none; when
   * it does not list the key and the key's id is above the highest it knows (a key issued after it
   * was taken), reloaded before deciding; an unlisted id at or below that is revoked and needs no
   * reload. When it is older than `SNAPSHOT_MAX_AGE_MS` (a lost push, a row changed by hand) the
   * request is decided with it and a reload runs behind it, so a warm request never waits for the
   * database. Every load is shared by the admits that arrive while it runs, and reloads start at
   * most once per `UNKNOWN_KEY_RELOAD_MS`, whether they succeed or not.
   */
  async #currentSnapshot(request: Pick<AdmitRequest, "accountId" | "keyId">): Promise<EntitlementSnapshot> {
    const held = this.#snapshot;
    if (!held) return this.#shared(request.accountId);
    const now = Date.now();
    const unlisted = !held.activeKeyIds.includes(request.keyId) && request.keyId > (held.maxKeyId ?? 0);
    if (unlisted && (this.#loading || now - Math.max(this.#snapshotAt, this.#loadStartedAt) >= UNKNOWN_KEY_RELOAD_MS)) {
      return this.#refresh(request.accountId, held);
    }
    if (now - this.#snapshotAt >= SNAPSHOT_MAX_AGE_MS && !this.#loading && now - this.#loadStartedAt >= UNKNOWN_KEY_RELOAD_MS) {
      void this.#refresh(request.accountId, held);
    }
    return held;
  }

  /** The load under way, or a new one: concurrent callers share one round trip. */
  #shared(accountId: number): Promise<EntitlementSnapshot> {
    if (!this.#loading) {
      this.#loadStartedAt = Date.now();
      this.#loading = this.#load(accountId).finally(() => (this.#loading = null));
    }
    return this.#loading;
  }

  /** Reloads the snapshot; while the database is away, the snapshot held is still the best answer. */
  async #refresh(accountId: number, held: EntitlementSnapshot): Promise<EntitlementSnapshot> {
    try {
      return await this.#shared(accountId);
    } catch (err) {
      console.warn(
        JSON.stringify({ level: "warn", event: "snapshot_refresh_failed", reason: err instanceof Error ? err.name : "unknown" }),
      );
      return held;
    }
  }

  async #load(accountId: number): Promise<EntitlementSnapshot> {
    return this.#keep(await this.#control.loadSnapshot(accountId));
  }

  /** Keeps `snapshot` unless a newer one arrived meanwhile (a push during a load); returns the one kept. */
  async #keep(snapshot: EntitlementSnapshot): Promise<EntitlementSnapshot> {
    const held = this.#snapshot;
    if (held && held.version > snapshot.version) return held;
    // Ids are never issued twice: the highest seen stays the bound even if its row is deleted by hand.
    if (held && (held.maxKeyId ?? 0) > (snapshot.maxKeyId ?? 0)) snapshot = { ...snapshot, maxKeyId: held.maxKeyId };
    this.#snapshot = snapshot;
    this.#snapshotAt = Date.now();
    await this.#stored.write({ snapshot, snapshotAt: this.#snapshotAt });
    return snapshot;
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    this.#sweep(Date.now());
    await this.#flushUsage();
    this.#scheduleAlarm();
  }

  /** Writes the day counts not yet in Postgres; off the request path (the alarm), retried a minute later on failure. */
  async #flushUsage(): Promise<void> {
    const days = Object.entries(this.#unflushed);
    if (days.length === 0 || this.#accountId === null) {
      this.#flushAt = null;
      return;
    }
    try {
      await this.#control.recordUsage(this.#accountId, days);
      // Only what was written leaves the buffer: requests admitted during the write stay for the next one.
      for (const [date, count] of days) if (this.#unflushed[date] === count) delete this.#unflushed[date];
      await this.#stored.write({ unflushed: this.#unflushed });
      this.#flushAt = Object.keys(this.#unflushed).length > 0 ? Date.now() + USAGE_FLUSH_MS : null;
    } catch (err) {
      console.warn(JSON.stringify({ level: "warn", event: "usage_flush_failed", reason: err instanceof Error ? err.name : "unknown" }));
      this.#flushAt = Date.now() + USAGE_FLUSH_MS;
    }
  }

  /** Key, entitlement and rate limit, in one step with no await: `cost` tokens taken from the bucket, or the refusal. */
  #take(snapshot: EntitlementSnapshot, request: AdmitRequest, cost: number, now: number): Refusal | Taken {
    const key = keyState(snapshot, request.keyId);
    if (key.kind !== "active") return key;
    const entitlement = entitlementView(snapshot, now);
    if (request.requireEntitlement && !entitlement.entitled) return { kind: "not_entitled", entitlement };
    const limits = limitsFor(snapshot.planId);
    const quota = perMinuteQuota(limits.requestsPerMinute);
    const decision = gcra(this.#tat, now, cost, quota);
    const rate = rateState(decision, quota);
    if (!decision.allowed) {
      return { kind: "rate_limited", rate, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    }
    this.#tat = decision.tat;
    return { kind: "taken", rate, entitlement, limits };
  }

  /** Adds `cost` to the ET day's count and writes the bucket, leases and counts through. */
  #count(accountId: number, cost: number, now: number): UsageView {
    const { date, resetAt } = usageDay(now);
    this.#day = { date, count: (this.#day.date === date ? this.#day.count : 0) + cost };
    this.#unflushed[date] = this.#day.count;
    this.#accountId = accountId;
    void this.#stored.write(
      { tat: this.#tat, day: this.#day, leases: this.#leases.entries(), unflushed: this.#unflushed, accountId },
      UNCONFIRMED,
    );
    this.#flushAt ??= now + USAGE_FLUSH_MS;
    this.#scheduleAlarm();
    return { date, today: this.#day.count, resetAt: resetAt.toISOString() };
  }

  #sweep(now: number): void {
    if (this.#leases.sweep(now)) void this.#stored.write({ leases: this.#leases.entries() }, UNCONFIRMED);
  }

  /** Keeps an alarm at or before the earliest lease expiry and the next usage write. */
  #scheduleAlarm(): void {
    const times = [this.#leases.nextExpiry(), this.#flushAt].filter((t): t is number => t !== null);
    if (times.length === 0) return;
    const next = Math.min(...times);
    if (this.#alarmAt !== null && this.#alarmAt <= next) return;
    this.#alarmAt = next;
    void this.ctx.storage.setAlarm(next, UNCONFIRMED);
  }
}

function rateState(d: GcraResult, quota: GcraQuota): RateState {
  return { limit: quota.limit, remaining: d.remaining, resetSeconds: Math.ceil(d.resetAfterMs / 1000) };
}

function entitlementView(s: EntitlementSnapshot, now: number): EntitlementView {
  const e = evaluateEntitlement(s, now);
  return {
    plan: s.planId,
    subscriptionStatus: s.status,
    entitled: e.entitled,
    reason: e.entitled ? "" : e.reason,
    ...(!e.entitled && e.requiredPlan ? { requiredPlan: e.requiredPlan } : {}),
  };
}
