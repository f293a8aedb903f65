import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts, subscriptions } from "../db/schema";
import { TRIAL_PLAN } from "../domain/plans";
import { DAY_MS } from "../domain/time";
import type { Accounts, AccountView, NewSubscription } from "./accounts";
import type { Commit } from "./commit";
import { noAccount, type ControlResult } from "./result";

const TRIAL_DAYS = TRIAL_PLAN.trialDays as number;

const TRIAL_USED: ControlResult<never> = { ok: false, reason: "trial_used", message: "This account has already used its free trial." };

/** An account's one subscription row, as the operator or the account's own trial sets it. */
export class Subscriptions {
  constructor(
    private readonly db: Database,
    private readonly commit: Commit,
    private readonly accounts: Accounts,
  ) {}

  /**
   * Sets the account's subscription. `trialing` starts the account's trial (once per account); `trialEnded` backdates it so it has already ended.
   */
  async set(input: NewSubscription): Promise<ControlResult<AccountView>> {
    const account = await this.accounts.find(input.account);
    if (!account) return noAccount(input.account);
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
        return TRIAL_USED;
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
    await this.commit(account.id, [
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
        .set({ trialStartedAt: sql`coalesce(${accounts.trialStartedAt}, ${trial.start}::timestamptz)` })
        .where(eq(accounts.id, account.id)),
    ]);
    return this.accounts.view(input.account);
  }

  /** Starts the account's one free trial; refused when it was used or a subscription is entitled. */
  async startTrial(accountName: string): Promise<ControlResult<AccountView>> {
    const view = await this.accounts.view(accountName);
    if (!view.ok) return view;
    const account = await this.accounts.find(accountName);
    if (account?.trialStartedAt) return TRIAL_USED;
    const status = view.value.subscription?.status;
    if (status === "active" || status === "past_due") {
      return { ok: false, reason: "conflict", message: "This account already has a subscription." };
    }
    return this.set({ account: accountName, status: "trialing" });
  }
}
