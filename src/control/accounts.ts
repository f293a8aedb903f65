import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts, subscriptions } from "../db/schema";
import { isoTimestamp } from "../db/timestamps";
import type { SubscriptionStatus } from "../domain/subscription-status";
import type { Commit } from "./commit";
import { noAccount, type ControlResult } from "./result";

export interface AccountRow {
  id: number;
  name: string;
  createdAt: string;
  trialStartedAt: string | null;
}

export interface AccountView {
  id: number;
  name: string;
  createdAt: string;
  subscription: { plan: string; status: string; trialEnd: string | null } | null;
}

export interface NewSubscription {
  account: string;
  status: SubscriptionStatus;
  plan?: string;
  trialEnded?: boolean;
}

/** Gives a new account its first subscription (`Subscriptions.set`, wired in by `ControlPlane`). */
export type Subscribe = (input: NewSubscription) => Promise<ControlResult<AccountView>>;

/** Accounts by name: the reads every other aggregate starts from, and account creation. */
export class Accounts {
  constructor(
    private readonly db: Database,
    private readonly commit: Commit,
    private readonly subscribe: Subscribe,
  ) {}

  async find(name: string): Promise<AccountRow | undefined> {
    const [row] = await this.db.select().from(accounts).where(eq(accounts.name, name));
    return row;
  }

  async view(name: string): Promise<ControlResult<AccountView>> {
    const account = await this.find(name);
    if (!account) return noAccount(name);
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
  async create(input: {
    name: string;
    status?: SubscriptionStatus | "none";
    plan?: string;
    trialEnded?: boolean;
  }): Promise<ControlResult<AccountView>> {
    const [created] = await this.db.insert(accounts).values({ name: input.name }).onConflictDoNothing().returning({ id: accounts.id });
    if (!created) return { ok: false, reason: "conflict", message: `An account named '${input.name}' already exists.` };
    if (input.status && input.status !== "none") {
      const set = await this.subscribe({ account: input.name, status: input.status, plan: input.plan, trialEnded: input.trialEnded });
      if (!set.ok) return set;
    } else {
      await this.commit(created.id, []);
    }
    return this.view(input.name);
  }
}
