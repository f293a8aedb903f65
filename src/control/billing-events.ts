import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "../db/client";
import { billingEvents, providerSubscriptions, subscriptions } from "../db/schema";
import { LIVE_PROVIDER_STATUSES, type SubscriptionStatus } from "../domain/subscription-status";
import type { Commit } from "./commit";

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

/** The payment provider's side: the events applied and the provider's subscriptions of each account. */
export class BillingEvents {
  constructor(
    private readonly db: Database,
    private readonly commit: Commit,
  ) {}

  /** Whether a provider event was already applied (its id recorded). */
  async eventApplied(eventId: string): Promise<boolean> {
    const [row] = await this.db.select({ id: billingEvents.eventId }).from(billingEvents).where(eq(billingEvents.eventId, eventId));
    return row !== undefined;
  }

  /** Whether the account has a provider subscription that still exists and bills (any price). */
  async hasLiveSubscription(accountId: number): Promise<boolean> {
    const [row] = await this.db
      .select({ id: providerSubscriptions.subscriptionId })
      .from(providerSubscriptions)
      .where(and(eq(providerSubscriptions.accountId, accountId), inArray(providerSubscriptions.status, [...LIVE_PROVIDER_STATUSES])))
      .limit(1);
    return row !== undefined;
  }

  /** The payment provider's customer id of an account, once its first subscription event arrived. */
  async customerOf(accountId: number): Promise<string | null> {
    const [row] = await this.db
      .select({ customer: subscriptions.providerCustomerId })
      .from(subscriptions)
      .where(eq(subscriptions.accountId, accountId));
    return row?.customer ?? null;
  }

  /**
   * Stores a subscription's state as retrieved from the provider, keyed by subscription id, records
   * the event that triggered the read, and re-derives the account's subscription row from its
   * subscriptions at the Basic price (the best status wins: active/trialing, past_due, incomplete,
   * unpaid/paused, then ended), all in one statement. `past_due_since` is set on the first
   * transition into `past_due` and cleared when it leaves. An event whose account is unknown
   * records nothing, so the provider's retry can apply it later.
   */
  async applyProviderSubscription(
    event: { id: string; type: string },
    state: ProviderSubscriptionState,
    basic: { plan: string; priceId: string },
  ): Promise<{ outcome: BillingOutcome; accountId: number | null }> {
    const isBasic = (column: SQL) => sql`coalesce(${column} = ${basic.priceId}, true)`;
    const statement = this.db.execute(sql`
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
        returning account_id)
      select (select id from target) as account_id, (select count(*) from fresh)::int as fresh,
        (select count(*) from stored)::int as stored`);
    // The account is the one whose provider subscription now holds this very read: none when the
    // event was a duplicate or the read stale, so those move no version and push nothing.
    const { results } = await this.commit(
      sql`(select ${providerSubscriptions.accountId} from ${providerSubscriptions}
        where ${providerSubscriptions.subscriptionId} = ${state.subscriptionId}
          and ${providerSubscriptions.syncedAt} = ${state.syncedAt}::timestamptz)`,
      [statement],
    );
    const row = results[0].rows[0] as { account_id: number | null; fresh: number; stored: number };
    if (row.account_id === null) return { outcome: "unknown_account", accountId: null };
    const accountId = Number(row.account_id);
    if (Number(row.fresh) === 0) return { outcome: "duplicate", accountId };
    if (Number(row.stored) === 0) return { outcome: "stale", accountId };
    return { outcome: "applied", accountId };
  }
}
