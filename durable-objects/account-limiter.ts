import { DurableObject } from "cloudflare:workers";
import { loadEntitlementSnapshot } from "../src/control/snapshot";
import { database, useNeonEndpoint } from "../src/db/client";
import { evaluateEntitlement, type EntitlementSnapshot } from "../src/domain/entitlement";
import { configFrom, type Bindings } from "../src/env";
import {
  LEASE_MS,
  MAX_IN_FLIGHT,
  type AdmitRequest,
  type AdmitResult,
  type EntitlementView,
  type RateState,
  type UsageView,
} from "../src/limits/admission";
import { ACCOUNT_QUOTA, gcra, type GcraResult } from "../src/limits/gcra";
import { usageDay } from "../src/limits/usage-day";

interface DayCount {
  date: string;
  count: number;
}

/** Hot-path writes do not hold the reply for disk: a lost write only forgets a little rate-limit history. */
const UNCONFIRMED = { allowUnconfirmed: true } as const;

/**
 * Per-account limits and state, one instance per account (`getByName(accountId)`): the GCRA
 * bucket shared by all the account's keys, the in-flight leases, the ET-day request counter and
 * the entitlement snapshot. The object's memory is the source of truth while it lives; storage
 * lets a restarted object pick up where it left off. Each RPC runs to completion without
 * interleaving, so the read-modify-write of the bucket is atomic.
 */
export class AccountLimiter extends DurableObject<Bindings> {
  #tat: number | null = null;
  #snapshot: EntitlementSnapshot | null = null;
  #day: DayCount = { date: "", count: 0 };
  /** Lease id → expiry (epoch ms). */
  #leases = new Map<string, number>();
  #alarmAt: number | null = null;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.get<unknown>(["tat", "snapshot", "day", "leases"]);
      this.#tat = (stored.get("tat") as number | undefined) ?? null;
      this.#snapshot = (stored.get("snapshot") as EntitlementSnapshot | undefined) ?? null;
      this.#day = (stored.get("day") as DayCount | undefined) ?? this.#day;
      this.#leases = new Map((stored.get("leases") as [string, number][] | undefined) ?? []);
      this.#alarmAt = await ctx.storage.getAlarm();
    });
  }

  /** Decides one request: key revocation, entitlement, rate limit, in-flight cap, daily count. */
  async admit(request: AdmitRequest): Promise<AdmitResult> {
    const snapshot = this.#snapshot ?? (await this.#loadSnapshot(request.accountId));
    const now = Date.now();
    if (snapshot.revokedKeyIds.includes(request.keyId)) return { kind: "revoked" };
    const entitlement = entitlementView(snapshot, now);
    if (request.requireEntitlement && !entitlement.entitled) return { kind: "not_entitled", entitlement };

    const decision = gcra(this.#tat, now, 1, ACCOUNT_QUOTA);
    const rate = rateState(decision);
    if (!decision.allowed) {
      return { kind: "rate_limited", rate, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    }
    this.#tat = decision.tat;

    this.sweepExpiredLeases(now);
    if (this.#leases.size >= MAX_IN_FLIGHT) {
      void this.ctx.storage.put("tat", this.#tat, UNCONFIRMED);
      return { kind: "too_many_concurrent", rate };
    }
    const leaseId = crypto.randomUUID();
    this.#leases.set(leaseId, now + LEASE_MS);
    const { date, resetAt } = usageDay(now);
    this.#day = this.#day.date === date ? { date, count: this.#day.count + 1 } : { date, count: 1 };
    void this.ctx.storage.put({ tat: this.#tat, day: this.#day, leases: [...this.#leases] }, UNCONFIRMED);
    this.#scheduleSweep();

    const usage: UsageView = { date, today: this.#day.count, resetAt: resetAt.toISOString() };
    return { kind: "admitted", rate, leaseId, entitlement, usage };
  }

  /** Frees an in-flight slot; releasing twice, or after expiry, is harmless. */
  release(leaseId: string): void {
    if (this.#leases.delete(leaseId)) void this.ctx.storage.put("leases", [...this.#leases], UNCONFIRMED);
  }

  /** Replaces the entitlement snapshot; the control plane calls this on every change. */
  async pushSnapshot(snapshot: EntitlementSnapshot): Promise<void> {
    this.#snapshot = snapshot;
    await this.ctx.storage.put("snapshot", snapshot);
  }

  inFlight(): number {
    return this.#leases.size;
  }

  sweepExpiredLeases(now: number): void {
    let changed = false;
    for (const [id, expiresAt] of this.#leases) {
      if (expiresAt <= now) changed = this.#leases.delete(id);
    }
    if (changed) void this.ctx.storage.put("leases", [...this.#leases], UNCONFIRMED);
  }

  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    this.sweepExpiredLeases(Date.now());
    this.#scheduleSweep();
  }

  /** Keeps an alarm at or before the earliest lease expiry. */
  #scheduleSweep(): void {
    let next: number | null = null;
    for (const expiresAt of this.#leases.values()) next = next === null ? expiresAt : Math.min(next, expiresAt);
    if (next === null || (this.#alarmAt !== null && this.#alarmAt <= next)) return;
    this.#alarmAt = next;
    void this.ctx.storage.setAlarm(next, UNCONFIRMED);
  }

  async #loadSnapshot(accountId: number): Promise<EntitlementSnapshot> {
    const config = configFrom(this.env);
    useNeonEndpoint(config.NEON_HTTP_ENDPOINT);
    const snapshot = await loadEntitlementSnapshot(database(config.CONTROL_DATABASE_URL), accountId);
    await this.pushSnapshot(snapshot);
    return snapshot;
  }
}

function rateState(d: GcraResult): RateState {
  return { limit: ACCOUNT_QUOTA.limit, remaining: d.remaining, resetSeconds: Math.ceil(d.resetAfterMs / 1000) };
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
