import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { displayPrefix, generateApiKey, hashApiKey } from "../access/api-key";
import type { Database } from "../db/client";
import { isoTimestamp } from "../db/timestamps";
import { accounts, apiKeys, billingEvents, identities, providerSubscriptions, subscriptions } from "../db/schema";
import { sha256Hex } from "../crypto/sha256";
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

/** A subscription as the payment provider reports it when retrieved (`src/billing/` maps it to this). */
export interface ProviderSubscriptionState {
  subscriptionId: string;
  customerId: string;
  /** From the subscription's `metadata.account_id` (set by our Checkout); else found by subscription or customer id. */
  accountId: number | null;
  status: SubscriptionStatus;
  /** The first item's price id. */
  priceId: string | null;
  currentPeriodEnd: string | null;
  /** When this state was read from the provider: an older read never overwrites a newer one. */
  syncedAt: string;
  /** Creation time of the event that triggered the read: a `past_due` spell first seen now began no later. */
  eventAt: string;
}

/**
 * `applied`: stored (and the account's subscription re-derived); `stale`: a newer read was already
 * stored; `duplicate`: the event was applied before; `unknown_account`: nothing recorded, to be retried.
 */
export type BillingOutcome = "applied" | "duplicate" | "stale" | "unknown_account";

/** Provider statuses in which a subscription still exists and bills: a second Checkout would make a second one. */
export const LIVE_PROVIDER_STATUSES: readonly SubscriptionStatus[] = ["active", "trialing", "past_due", "incomplete", "unpaid", "paused"];

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
      pastDueSince: input.status === "past_due" ? new Date(now).toISOString() : null,
      updatedAt: new Date(now).toISOString(),
    };
    await this.db.batch([
      this.db
        .insert(subscriptions)
        .values(values)
        .onConflictDoUpdate({
          target: subscriptions.accountId,
          set: {
            ...values,
            // The grace period runs from the first transition into past_due: staying past_due keeps it.
            pastDueSince: sql`case when excluded.status = 'past_due' and ${subscriptions.status} = 'past_due'
              then coalesce(${subscriptions.pastDueSince}, excluded.past_due_since) else excluded.past_due_since end`,
          },
        }),
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

  /**
   * The account of a single-sign-on identity, created with the identity on its first sign-in. The
   * name derives from issuer and subject, so two concurrent first sign-ins create one account.
   */
  async signIn(identity: { issuer: string; subject: string; email: string | null }): Promise<{ id: number; name: string }> {
    const name = `sso-${(await sha256Hex(`${identity.issuer}\n${identity.subject}`)).slice(0, 20)}`;
    const linked = await this.#linkedAccount(identity.issuer, identity.subject);
    if (linked) return linked;
    await this.db.execute(sql`
      with account as (
        insert into accounts (name) values (${name})
        on conflict (name) do update set name = excluded.name
        returning id)
      insert into identities (account_id, issuer, subject, email)
      select id, ${identity.issuer}, ${identity.subject}, ${identity.email} from account
      on conflict (issuer, subject) do nothing`);
    const row = await this.#linkedAccount(identity.issuer, identity.subject);
    if (!row) throw new Error("identity link not found after insert");
    await this.#push(row.id);
    return row;
  }

  async #linkedAccount(issuer: string, subject: string): Promise<{ id: number; name: string } | undefined> {
    const [row] = await this.db
      .select({ id: accounts.id, name: accounts.name })
      .from(identities)
      .innerJoin(accounts, eq(accounts.id, identities.accountId))
      .where(and(eq(identities.issuer, issuer), eq(identities.subject, subject)));
    return row;
  }

  /** Starts the account's one free trial; refused when it was used or a subscription is entitled. */
  async startTrial(accountName: string): Promise<ControlResult<AccountView>> {
    const view = await this.accountView(accountName);
    if (!view.ok) return view;
    const account = await this.findAccount(accountName);
    if (account?.trialStartedAt) return { ok: false, reason: "trial_used", message: "This account has already used its free trial." };
    const status = view.value.subscription?.status;
    if (status === "active" || status === "past_due") {
      return { ok: false, reason: "conflict", message: "This account already has a subscription." };
    }
    return this.setSubscription({ account: accountName, status: "trialing" });
  }

  /** Whether a provider event was already applied (its id recorded). */
  async billingEventApplied(eventId: string): Promise<boolean> {
    const [row] = await this.db.select({ id: billingEvents.eventId }).from(billingEvents).where(eq(billingEvents.eventId, eventId));
    return row !== undefined;
  }

  /** Whether the account has a provider subscription that still exists and bills (any price). */
  async hasLiveProviderSubscription(accountId: number): Promise<boolean> {
    const [row] = await this.db
      .select({ id: providerSubscriptions.subscriptionId })
      .from(providerSubscriptions)
      .where(and(eq(providerSubscriptions.accountId, accountId), inArray(providerSubscriptions.status, [...LIVE_PROVIDER_STATUSES])))
      .limit(1);
    return row !== undefined;
  }

  /**
   * Stores a subscription's state as retrieved from the provider, keyed by subscription id, records
   * the event that triggered the read, and re-derives the account's subscription row from its
   * subscriptions at the Basic price (the best status wins: active/trialing, past_due, incomplete,
   * unpaid/paused, then ended), all in one statement (one transaction). `past_due_since` is set on
   * the first transition into `past_due` and cleared when it leaves. An event whose account is
   * unknown records nothing, so the provider's retry can apply it later.
   */
  async applyProviderSubscription(
    event: { id: string; type: string },
    state: ProviderSubscriptionState,
    basic: { plan: string; priceId: string },
  ): Promise<{ outcome: BillingOutcome; accountId: number | null }> {
    const isBasic = (column: SQL) => sql`coalesce(${column} = ${basic.priceId}, true)`;
    const result = await this.db.execute(sql`
      with target as (
        select a.id from accounts a
        where a.id = coalesce(${state.accountId}::int,
          (select p.account_id from provider_subscriptions p where p.subscription_id = ${state.subscriptionId}),
          (select p.account_id from provider_subscriptions p where p.customer_id = ${state.customerId} limit 1),
          (select s.account_id from subscriptions s where s.provider_customer_id = ${state.customerId} limit 1))),
      fresh as (
        insert into billing_events (event_id, type, created_at)
        select ${event.id}, ${event.type}, ${state.eventAt}::timestamptz from target
        on conflict (event_id) do nothing
        returning event_id),
      stored as (
        insert into provider_subscriptions (subscription_id, account_id, customer_id, status, price_id, current_period_end,
          past_due_since, synced_at)
        select ${state.subscriptionId}, target.id, ${state.customerId}, ${state.status}, ${state.priceId},
          ${state.currentPeriodEnd}::timestamptz,
          case when ${state.status} = 'past_due' then least(${state.eventAt}::timestamptz, ${state.syncedAt}::timestamptz) end,
          ${state.syncedAt}::timestamptz
        from target, fresh
        on conflict (subscription_id) do update set
          customer_id = excluded.customer_id,
          status = excluded.status,
          price_id = excluded.price_id,
          current_period_end = excluded.current_period_end,
          past_due_since = case when excluded.status = 'past_due'
            then coalesce(provider_subscriptions.past_due_since, excluded.past_due_since) end,
          synced_at = excluded.synced_at
        where provider_subscriptions.synced_at <= excluded.synced_at
        returning subscription_id, account_id, customer_id, status, price_id, current_period_end, past_due_since, synced_at),
      candidates as (
        select * from stored
        union all
        select p.subscription_id, p.account_id, p.customer_id, p.status, p.price_id, p.current_period_end, p.past_due_since, p.synced_at
        from provider_subscriptions p
        where p.account_id = (select account_id from stored) and p.subscription_id <> ${state.subscriptionId}),
      best as (
        select c.* from candidates c
        -- Only Basic subscriptions grant anything; another price replaces the row only of the subscription it tracks.
        where ${isBasic(sql`c.price_id`)} or c.subscription_id =
          (select s.provider_subscription_id from subscriptions s where s.account_id = c.account_id)
        order by ${isBasic(sql`c.price_id`)} desc,
          case c.status when 'active' then 0 when 'trialing' then 0 when 'past_due' then 1 when 'incomplete' then 2
            when 'unpaid' then 3 when 'paused' then 3 else 4 end,
          c.current_period_end desc nulls last, c.synced_at desc
        limit 1),
      applied as (
        insert into subscriptions (account_id, plan_id, status, current_period_end, past_due_since, provider_customer_id,
          provider_subscription_id, provider_event_at, updated_at, trial_start, trial_end)
        select account_id, ${basic.plan},
          case when ${isBasic(sql`price_id`)} then status else 'canceled' end,
          current_period_end, case when ${isBasic(sql`price_id`)} then past_due_since end,
          customer_id, subscription_id, synced_at, now(), null, null
        from best
        on conflict (account_id) do update set
          plan_id = excluded.plan_id,
          status = excluded.status,
          current_period_end = excluded.current_period_end,
          past_due_since = excluded.past_due_since,
          provider_customer_id = excluded.provider_customer_id,
          provider_subscription_id = excluded.provider_subscription_id,
          provider_event_at = excluded.provider_event_at,
          updated_at = now(),
          trial_start = null,
          trial_end = null
        returning account_id),
      bumped as (
        update accounts set snapshot_version = snapshot_version + 1 where id in (select account_id from applied) returning id)
      select (select id from target) as account_id, (select count(*) from fresh)::int as fresh,
        (select count(*) from stored)::int as stored, (select count(*) from bumped)::int as bumped`);
    const row = result.rows[0] as { account_id: number | null; fresh: number; stored: number };
    if (row.account_id === null) return { outcome: "unknown_account", accountId: null };
    const accountId = Number(row.account_id);
    if (Number(row.fresh) === 0) return { outcome: "duplicate", accountId };
    if (Number(row.stored) === 0) return { outcome: "stale", accountId };
    await this.#push(accountId);
    return { outcome: "applied", accountId };
  }

  /** The payment provider's customer id of an account, once its first subscription event arrived. */
  async providerCustomer(accountId: number): Promise<string | null> {
    const [row] = await this.db
      .select({ customer: subscriptions.providerCustomerId })
      .from(subscriptions)
      .where(eq(subscriptions.accountId, accountId));
    return row?.customer ?? null;
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
