import { runInDurableObject } from "cloudflare:test";
import { ControlPlane } from "../../src/control/control-plane";
import { database } from "../../src/db/client";
import type { EntitlementSnapshot } from "../../src/domain/entitlement";
import { testEnv } from "./worker";

/** An account's Durable Object (its GCRA bucket, in-flight leases and entitlement snapshot), by account id. */
export const limiterOf = (accountId: number) => testEnv.ACCOUNT_LIMITER.getByName(String(accountId));

/** The entitlement snapshot the object holds in storage (what a restarted object reads). */
export const storedSnapshot = (accountId: number) =>
  runInDurableObject(limiterOf(accountId), (_o, state) => state.storage.get<EntitlementSnapshot>("snapshot"));

/** When the object last loaded its snapshot from Postgres: unchanged means no reload. */
export const snapshotAt = (accountId: number) =>
  runInDurableObject(limiterOf(accountId), (_o, state) => state.storage.get<number>("snapshotAt"));

/** The control plane with every push to the objects lost (an object unreachable when a write commits). */
export const unpushedControlPlane = () =>
  new ControlPlane(database(testEnv.CONTROL_DATABASE_URL), { pushSnapshot: () => Promise.reject(new Error("object unreachable")) });
