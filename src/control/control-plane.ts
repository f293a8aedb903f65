import type { Database } from "../db/client";
import { Accounts } from "./accounts";
import { BillingEvents } from "./billing-events";
import { committer, type SnapshotSink } from "./commit";
import { Identities } from "./identities";
import { Keys } from "./keys";
import { Subscriptions } from "./subscriptions";

/**
 * Accounts, keys and subscriptions, one aggregate each, all writing through one `commit`: every
 * change is pushed to the account's Durable Object before the call returns, so it holds on the
 * very next request.
 */
export class ControlPlane {
  readonly accounts: Accounts;
  readonly subscriptions: Subscriptions;
  readonly keys: Keys;
  readonly identities: Identities;
  readonly billing: BillingEvents;

  constructor(db: Database, sink: SnapshotSink) {
    const commit = committer(db, sink);
    this.accounts = new Accounts(db, commit, (input) => this.subscriptions.set(input));
    this.subscriptions = new Subscriptions(db, commit, this.accounts);
    this.keys = new Keys(db, commit, this.accounts);
    this.identities = new Identities(db, commit);
    this.billing = new BillingEvents(db, commit);
  }
}
