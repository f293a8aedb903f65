import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { displayPrefix, generateApiKey, hashApiKey } from "../access/api-key";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { accounts, apiKeys, subscriptions } from "../db/schema";
import { loadEntitlementSnapshot } from "./snapshot";
import type { EntitlementSnapshot } from "../domain/entitlement";
import { limitsFor, TRIAL_PLAN } from "../domain/plans";
import { DAY_MS } from "../domain/time";

/** The account's Durable Object, as the control plane sees it. */
export interface SnapshotSink {
  pushSnapshot(accountId: number, snapshot: EntitlementSnapshot): Promise<void>;
}

const TRIAL_DAYS = TRIAL_PLAN.trialDays as number;

/** Payment-provider subscription statuses (Stripe's set). */
export const SUBSCRIPTION_STATUSES = [
  "trialing",
  "active",
  "past_due",
  "canceled",
  "unpaid",
  "incomplete",
  "incomplete_expired",
  "paused",
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Outcomes the HTTP layer turns into responses; services never throw for expected cases. */
export type ControlResult<T> =
  { ok: true; value: T } | { ok: false; reason: "not_found" | "conflict" | "key_limit" | "trial_used" | "invalid"; message: string };

export interface AccountView {
  id: number;
  name: string;
  createdAt: string;
  subscription: { plan: string; status: string; trialEnd: string | null } | null;
}

export interface KeyView {
  id: number;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * The one module that writes accounts, keys and subscriptions. Every change is pushed to the
 * account's Durable Object before the call returns, so it holds on the very next request.
 */
export class ControlPlane {
  constructor(
    private readonly db: Database,
    private readonly sink: SnapshotSink,
  ) {}

  /**
   * Tells the account's object about a committed change (twice at most). A push that still fails
   * does not fail the change: the object reloads its snapshot when it is older than
   * `SNAPSHOT_MAX_AGE_MS`, so the change holds everywhere within that bound (and one request).
   */
  async #push(accountId: number): Promise<void> {
    for (let attempt = 1; attempt <= 2; attempt++) {
      try {
        await this.sink.pushSnapshot(accountId, await loadEntitlementSnapshot(this.db, accountId));
        return;
      } catch (err) {
        if (attempt === 2) {
          const reason = err instanceof Error ? err.name : "unknown";
          console.warn(JSON.stringify({ level: "warn", event: "snapshot_push_failed", accountId, reason }));
        }
      }
    }
  }

  /** Moves the account's snapshot version on; part of the same batch as the change it versions. */
  #bumpVersion(accountId: number | SQL) {
    return this.db
      .update(accounts)
      .set({ snapshotVersion: sql`${accounts.snapshotVersion} + 1` })
      .where(eq(accounts.id, accountId));
  }

  async findAccount(name: string): Promise<{ id: number; name: string; createdAt: string; trialStartedAt: string | null } | undefined> {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.name, name));
    return row;
  }

  async accountView(name: string): Promise<ControlResult<AccountView>> {
    const account = await this.findAccount(name);
    if (!account) return { ok: false, reason: "not_found", message: `No account named '${name}'.` };
    const [sub] = await this.db.select().from(subscriptions).where(eq(subscriptions.accountId, account.id));
    return {
      ok: true,
      value: {
        id: account.id,
        name: account.name,
        createdAt: isoTimestamp(account.createdAt),
        subscription: sub ? { plan: sub.planId, status: sub.status, trialEnd: isoTimestamp(sub.trialEnd) } : null,
      },
    };
  }

  /** Creates an account, optionally with a subscription in the given status (`trialing` starts its one trial). */
  async createAccount(input: {
    name: string;
    status?: SubscriptionStatus | "none";
    plan?: string;
    trialEnded?: boolean;
  }): Promise<ControlResult<AccountView>> {
    const [created] = await this.db.insert(accounts).values({ name: input.name }).onConflictDoNothing().returning({ id: accounts.id });
    if (!created) return { ok: false, reason: "conflict", message: `An account named '${input.name}' already exists.` };
    if (input.status && input.status !== "none") {
      const set = await this.setSubscription({ account: input.name, status: input.status, plan: input.plan, trialEnded: input.trialEnded });
      if (!set.ok) return set;
    } else {
      await this.#push(created.id);
    }
    return this.accountView(input.name);
  }

  /**
   * Sets the account's subscription. `trialing` starts the account's trial (once per account); `trialEnded` backdates it so it has already ended.
   */
  async setSubscription(input: {
    account: string;
    status: SubscriptionStatus;
    plan?: string;
    trialEnded?: boolean;
  }): Promise<ControlResult<AccountView>> {
    const account = await this.findAccount(input.account);
    if (!account) return { ok: false, reason: "not_found", message: `No account named '${input.account}'.` };
    const plan = input.plan ?? (input.status === "trialing" || input.trialEnded ? TRIAL_PLAN.id : "basic");
    const now = Date.now();
    let trial: { start: string | null; end: string | null } = { start: null, end: null };
    if (plan === TRIAL_PLAN.id) {
      const [current] = await this.db.select().from(subscriptions).where(eq(subscriptions.accountId, account.id));
      if (input.trialEnded) {
        trial = { start: new Date(now - (TRIAL_DAYS + 1) * DAY_MS).toISOString(), end: new Date(now - DAY_MS).toISOString() };
      } else if (current?.planId === TRIAL_PLAN.id) {
        trial = { start: current.trialStart, end: current.trialEnd };
      } else if (account.trialStartedAt) {
        return { ok: false, reason: "trial_used", message: "This account has already used its free trial." };
      } else {
        trial = { start: new Date(now).toISOString(), end: new Date(now + TRIAL_DAYS * DAY_MS).toISOString() };
      }
    }
    const values = {
      accountId: account.id,
      planId: plan,
      status: input.status,
      trialStart: trial.start,
      trialEnd: trial.end,
      updatedAt: new Date(now).toISOString(),
    };
    await this.db.batch([
      this.db.insert(subscriptions).values(values).onConflictDoUpdate({ target: subscriptions.accountId, set: values }),
      this.db
        .update(accounts)
        .set({
          trialStartedAt: sql`coalesce(${accounts.trialStartedAt}, ${trial.start}::timestamptz)`,
          snapshotVersion: sql`${accounts.snapshotVersion} + 1`,
        })
        .where(eq(accounts.id, account.id)),
    ]);
    await this.#push(account.id);
    return this.accountView(input.account);
  }

  /** Issues a key (at most the plan's active-key limit); the raw key is returned once and never stored. */
  async createKey(accountName: string): Promise<ControlResult<{ id: number; key: string; prefix: string }>> {
    const account = await this.findAccount(accountName);
    if (!account) return { ok: false, reason: "not_found", message: `No account named '${accountName}'.` };
    const key = generateApiKey();
    const prefix = displayPrefix(key);
    const hash = await hashApiKey(key);
    const [sub] = await this.db.select({ planId: subscriptions.planId }).from(subscriptions).where(eq(subscriptions.accountId, account.id));
    const maxActive = limitsFor(sub?.planId).activeKeys;
    // The advisory lock serialises concurrent creations for one account inside the batch transaction.
    const [, inserted] = await this.db.batch([
      this.db.execute(sql`select pg_advisory_xact_lock(${account.id})`),
      this.db.execute(sql`
        insert into api_keys (account_id, key_hash, prefix)
        select ${account.id}, ${hash}, ${prefix}
        where (select count(*) from api_keys where account_id = ${account.id} and revoked_at is null) < ${maxActive}
        returning id`),
      this.#bumpVersion(account.id),
    ]);
    const id = (inserted.rows[0] as { id?: number } | undefined)?.id;
    if (id === undefined) {
      return { ok: false, reason: "key_limit", message: `An account may have at most ${maxActive} active keys; revoke one first.` };
    }
    // The new key is on the account's allowlist before it is handed out.
    await this.#push(account.id);
    return { ok: true, value: { id: Number(id), key, prefix } };
  }

  async listKeys(accountName: string): Promise<ControlResult<KeyView[]>> {
    const account = await this.findAccount(accountName);
    if (!account) return { ok: false, reason: "not_found", message: `No account named '${accountName}'.` };
    const rows = await this.db
      .select({ id: apiKeys.id, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, account.id))
      .orderBy(asc(apiKeys.id));
    return { ok: true, value: rows.map(keyView) };
  }

  /** Revokes a key; refused on the account's very next request. Revoking twice is harmless. */
  async revokeKey(keyId: number): Promise<ControlResult<KeyView>> {
    await this.db.batch([
      this.db
        .update(apiKeys)
        .set({ revokedAt: new Date().toISOString() })
        .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt))),
      this.#bumpVersion(sql`(select ${apiKeys.accountId} from ${apiKeys} where ${apiKeys.id} = ${keyId})`),
    ]);
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    if (!row) return { ok: false, reason: "not_found", message: `No key with id ${keyId}.` };
    await this.#push(row.accountId);
    return { ok: true, value: keyView(row) };
  }
}

function keyView(row: { id: number; prefix: string; createdAt: string; revokedAt: string | null }): KeyView {
  return { id: row.id, prefix: row.prefix, createdAt: isoTimestamp(row.createdAt), revokedAt: isoTimestamp(row.revokedAt) };
}
