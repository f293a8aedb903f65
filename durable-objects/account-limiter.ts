import { DurableObject } from "cloudflare:workers";
import { loadEntitlementSnapshot } from "../src/control/snapshot";
import { database, useNeonEndpoint } from "../src/db/client";
import { evaluateEntitlement, type EntitlementSnapshot } from "../src/domain/entitlement";
import { configFrom, type Bindings } from "../src/env";
import { LEASE_MS, MAX_IN_FLIGHT, type AdmitRequest, type AdmitResult, type EntitlementView, type RateState, type UsageView } from "../src/limits/admission";
import { ACCOUNT_QUOTA, gcra, type GcraResult } from "../src/limits/gcra";
import { usageDay } from "../src/limits/usage-day";

/**
 * Per-account limits and state, one instance per account (`getByName(accountId)`): the GCRA
 * bucket shared by all the account's keys, the in-flight leases, the ET-day request counter and
 * the entitlement snapshot. Everything lives in the object's SQLite storage, mirrored in memory;
 * storage calls are synchronous, so each RPC runs atomically.
 */
export class AccountLimiter extends DurableObject<Bindings> {
  #tat: number | null = null;
  #snapshot: EntitlementSnapshot | null = null;
  #day: { date: string; count: number } = { date: "", count: 0 };

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec("create table if not exists state (name text primary key, value text not null)");
    sql.exec("create table if not exists leases (id text primary key, expires_at integer not null)");
    for (const row of sql.exec<{ name: string; value: string }>("select name, value from state")) {
      if (row.name === "tat") this.#tat = Number(row.value);
      if (row.name === "snapshot") this.#snapshot = JSON.parse(row.value) as EntitlementSnapshot;
      if (row.name === "day") this.#day = JSON.parse(row.value) as { date: string; count: number };
    }
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
    this.#put("tat", String(decision.tat));

    this.sweepExpiredLeases(now);
    if (this.inFlight() >= MAX_IN_FLIGHT) return { kind: "too_many_concurrent", rate };
    const leaseId = crypto.randomUUID();
    this.ctx.storage.sql.exec("insert into leases (id, expires_at) values (?, ?)", leaseId, now + LEASE_MS);
    await this.#scheduleSweep();

    return { kind: "admitted", rate, leaseId, entitlement, usage: this.#count(now) };
  }

  /** Frees an in-flight slot; releasing twice, or after expiry, is harmless. */
  release(leaseId: string): void {
    this.ctx.storage.sql.exec("delete from leases where id = ?", leaseId);
  }

  /** Replaces the entitlement snapshot; the control plane calls this on every change. */
  pushSnapshot(snapshot: EntitlementSnapshot): void {
    this.#snapshot = snapshot;
    this.#put("snapshot", JSON.stringify(snapshot));
  }

  inFlight(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("select count(*) as n from leases").one().n;
  }

  sweepExpiredLeases(now: number): void {
    this.ctx.storage.sql.exec("delete from leases where expires_at <= ?", now);
  }

  override async alarm(): Promise<void> {
    this.sweepExpiredLeases(Date.now());
    await this.#scheduleSweep();
  }

  async #scheduleSweep(): Promise<void> {
    const next = this.ctx.storage.sql.exec<{ at: number | null }>("select min(expires_at) as at from leases").one().at;
    if (next === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }

  #count(now: number): UsageView {
    const { date, resetAt } = usageDay(now);
    this.#day = this.#day.date === date ? { date, count: this.#day.count + 1 } : { date, count: 1 };
    this.#put("day", JSON.stringify(this.#day));
    return { date, today: this.#day.count, resetAt: resetAt.toISOString() };
  }

  async #loadSnapshot(accountId: number): Promise<EntitlementSnapshot> {
    const config = configFrom(this.env);
    useNeonEndpoint(config.NEON_HTTP_ENDPOINT);
    const snapshot = await loadEntitlementSnapshot(database(config.CONTROL_DATABASE_URL), accountId);
    this.pushSnapshot(snapshot);
    return snapshot;
  }

  #put(name: string, value: string): void {
    this.ctx.storage.sql.exec("insert into state (name, value) values (?, ?) on conflict (name) do update set value = excluded.value", name, value);
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
