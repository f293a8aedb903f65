import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AdminClient } from "./admin-client";

const DEMO_ACCOUNT = "demo";

/**
 * Ensures, through the admin API, that the demo account exists with an active Basic
 * subscription, and returns an API key for it: the one saved in `keyFile` while it still
 * verifies, else a new one (saved there).
 */
export async function ensureDemoKey(client: AdminClient, keyFile: string): Promise<string> {
  const created = await client.createAccount({ name: DEMO_ACCOUNT, status: "active", plan: "basic" });
  if (!created.ok) {
    if (created.body.error !== "conflict") throw new Error(`demo account: ${created.body.message}`);
    const set = await client.setSubscription(DEMO_ACCOUNT, { status: "active", plan: "basic" });
    if (!set.ok) throw new Error(`demo subscription: ${set.body.message}`);
  }
  if (existsSync(keyFile)) {
    const saved = readFileSync(keyFile, "utf8").trim();
    const res = await fetch(`${client.baseUrl}/v1/auth/verify`, { headers: { Authorization: `Bearer ${saved}` } }).catch(() => undefined);
    if (res?.status === 200) return saved;
  }
  const key = await client.createKey(DEMO_ACCOUNT);
  if (!key.ok) throw new Error(`demo key: ${key.body.message}`);
  writeFileSync(keyFile, `${key.body.key}\n`, { mode: 0o600 });
  return key.body.key;
}
