import { loadEntitlementSnapshot } from "../src/control/snapshot";
import { recordUsage } from "../src/control/usage";
import { forRpc } from "../src/db/errors";
import { workerDatabase } from "../src/db/worker-database";
import type { EntitlementSnapshot } from "../src/domain/entitlement";
import type { Bindings } from "../src/env";

/** All the account limiter asks of the control-plane database. */
export interface ControlDatabase {
  /** The account's entitlement snapshot as committed; an unavailability fails with the message the Worker's one mapping reads. */
  loadSnapshot(accountId: number): Promise<EntitlementSnapshot>;
  /** Absolute per-ET-day request counts: a retried or reordered write never counts twice. */
  recordUsage(accountId: number, days: [date: string, requests: number][]): Promise<void>;
}

/** The control database of the Durable Object's environment, over the same driver and deadline as the Worker's. */
export function controlDatabaseOf(env: Bindings): ControlDatabase {
  const connect = () => workerDatabase(env, "control");
  return {
    // RPC carries only an error's message: say "unavailable" in a way the Worker's one mapping reads.
    loadSnapshot: (accountId) =>
      loadEntitlementSnapshot(connect(), accountId).catch((err: unknown) => {
        throw forRpc(err);
      }),
    recordUsage: (accountId, days) => recordUsage(connect(), accountId, days),
  };
}
