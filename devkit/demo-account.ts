import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { AdminClient } from "../ingest/admin-api/admin-client";

const DEMO_ACCOUNT = "demo";

/** Where the demo key of one database is kept, and where the key of the database served last is copied. */
export interface DemoKeyFiles {
  /** This database's own demo key: a return to the database finds its key again. */
  ofDatabase: string;
  /** `.dev/demo-api-key`: the key of whatever `npm run dev` serves now, as the README reads it. */
  current: string;
}

async function verifies(client: AdminClient, key: string): Promise<boolean> {
  const res = await fetch(`${client.baseUrl}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key}` } }).catch(() => undefined);
  return res?.status === 200;
}

/** A new key for the demo account; at the account's key cap its oldest active key is revoked first. */
async function newDemoKey(client: AdminClient): Promise<string> {
  const first = await client.createKey(DEMO_ACCOUNT);
  if (first.ok) return first.body.key;
  if (first.body.error !== "key_limit_reached") throw new Error(`demo key: ${first.body.message}`);
  const keys = await client.listKeys(DEMO_ACCOUNT);
  if (!keys.ok) throw new Error(`demo keys: ${keys.body.message}`);
  const oldest = keys.body.filter((k) => k.revokedAt === null).sort((a, b) => a.id - b.id)[0];
  if (oldest) {
    const revoked = await client.revokeKey(oldest.id);
    if (!revoked.ok) throw new Error(`demo key ${oldest.prefix}…: ${revoked.body.message}`);
  }
  const second = await client.createKey(DEMO_ACCOUNT);
  if (!second.ok) throw new Error(`demo key: ${second.body.message}`);
  return second.body.key;
}

/**
 * Ensures, through the admin API, that the demo account exists with an active Basic
 * subscription, and returns an API key for it: a saved one that verifies against this database
 * (the Worker's key cache is per database, so another database's key does not), else a new one;
 * saved for this database and as the current key.
 */
export async function ensureDemoKey(client: AdminClient, files: DemoKeyFiles): Promise<string> {
  const created = await client.createAccount({ name: DEMO_ACCOUNT, status: "active", plan: "basic" });
  if (!created.ok) {
    if (created.body.error !== "conflict") throw new Error(`demo account: ${created.body.message}`);
    const set = await client.setSubscription(DEMO_ACCOUNT, { status: "active", plan: "basic" });
    if (!set.ok) throw new Error(`demo subscription: ${set.body.message}`);
  }
  // This database's own key first; the current one may be this database's too (saved before keys were kept per database).
  let key: string | undefined;
  for (const file of [files.ofDatabase, files.current]) {
    const saved = existsSync(file) ? readFileSync(file, "utf8").trim() : "";
    if (saved && (await verifies(client, saved))) {
      key = saved;
      break;
    }
  }
  key ??= await newDemoKey(client);
  for (const file of [files.ofDatabase, files.current]) writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}
