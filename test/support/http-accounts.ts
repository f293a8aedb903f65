import { existsSync, readFileSync } from "node:fs";
import { inject } from "vitest";
import { bodyOf } from "../../ingest/admin-api/admin-api";
import { AdminClient } from "../../ingest/admin-api/admin-client";

let started: { url: string; adminToken: string } | undefined;

/**
 * The shared `wrangler dev` (test/support/shared-worker.ts): its URL and admin token. It starts in the background;
 * the system tier's setup file waits for it (`waitForSharedWorker`) before a file's first test.
 */
export function sharedWorker(): { url: string; adminToken: string } {
  if (started) return started;
  const { adminToken, urlFile } = inject("sharedWorker");
  const outcome = JSON.parse(readFileSync(urlFile, "utf8")) as { url?: string; error?: string };
  if (!outcome.url) throw new Error(`the shared wrangler dev did not start: ${outcome.error}`);
  return (started = { url: outcome.url, adminToken });
}

/** Resolves once the shared `wrangler dev` answers (or throws why it could not start), within `timeoutMs`. */
export async function waitForSharedWorker(timeoutMs: number): Promise<void> {
  const { urlFile } = inject("sharedWorker");
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(urlFile)) {
    if (Date.now() > deadline) throw new Error(`the shared wrangler dev did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  sharedWorker();
}
export const adminOfSharedWorker = () => new AdminClient(sharedWorker().url, sharedWorker().adminToken);

let counter = 0;

/** A fresh account on the shared Worker, with one key: `status` active and the catalogue's plan unless given. */
export async function newHttpAccount(options: { status?: "active" | "canceled" | "trialing"; plan?: string; trialEnded?: boolean } = {}) {
  const admin = adminOfSharedWorker();
  const name = `http-${Date.now().toString(36)}-${++counter}-${crypto.randomUUID().slice(0, 8)}`;
  bodyOf(await admin.createAccount({ name, status: options.status ?? "active", plan: options.plan, trialEnded: options.trialEnded }));
  const key = bodyOf(await admin.createKey(name));
  return { name, key: key.key, keyId: key.id, revoke: async () => bodyOf(await admin.revokeKey(key.id)) };
}

/**
 * Spends the account's per-minute allowance (300) with cheap calls, four at a time (under the
 * in-flight cap of 5), until one is refused `rate_limited`: the account's next call is refused too.
 */
export async function exhaustRateLimit(key: string): Promise<void> {
  const usage = async () => {
    const res = await fetch(`${sharedWorker().url}/v1/usage`, { headers: { Authorization: `Bearer ${key}` } });
    return res.status === 429 ? ((await res.json()) as { error: string }).error : String(res.status);
  };
  for (let round = 0; round < 120; round++) {
    const outcomes = await Promise.all([usage(), usage(), usage(), usage()]);
    if (outcomes.includes("rate_limited")) return;
  }
  throw new Error("the account's rate limit was never reached");
}
