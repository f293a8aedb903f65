import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { apiKeys, subscriptions } from "../db/schema";
import { isoTimestamp } from "../db/timestamps";
import { displayPrefix, generateApiKey, hashApiKey } from "../domain/api-key";
import { limitsFor } from "../domain/plans";
import type { Accounts } from "./accounts";
import type { Commit } from "./commit";
import { noAccount, type ControlResult } from "./result";

export interface KeyView {
  id: number;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/** An account's API keys: issued within the plan's limit, stored only as hashes, revoked for good. */
export class Keys {
  constructor(
    private readonly db: Database,
    private readonly commit: Commit,
    private readonly accounts: Accounts,
  ) {}

  /** Issues a key (at most the plan's active-key limit); the raw key is returned once and never stored. */
  async create(accountName: string): Promise<ControlResult<{ id: number; key: string; prefix: string }>> {
    const account = await this.accounts.find(accountName);
    if (!account) return noAccount(accountName);
    const key = generateApiKey();
    const prefix = displayPrefix(key);
    const hash = await hashApiKey(key);
    const [sub] = await this.db.select({ planId: subscriptions.planId }).from(subscriptions).where(eq(subscriptions.accountId, account.id));
    const maxActive = limitsFor(sub?.planId).activeKeys;
    // The new key is on the account's allowlist before it is handed out. The account is found by
    // the new key's hash, so a creation refused at the limit moves no version and pushes nothing.
    const { results } = await this.commit(sql`(select ${apiKeys.accountId} from ${apiKeys} where ${apiKeys.keyHash} = ${hash})`, [
      // The advisory lock serialises concurrent creations for one account inside the batch transaction.
      this.db.execute(sql`select pg_advisory_xact_lock(${account.id})`),
      this.db.execute(sql`
        insert into api_keys (account_id, key_hash, prefix)
        select ${account.id}, ${hash}, ${prefix}
        where (select count(*) from api_keys where account_id = ${account.id} and revoked_at is null) < ${maxActive}
        returning id`),
    ]);
    const id = (results[1].rows[0] as { id?: number } | undefined)?.id;
    if (id === undefined) {
      return { ok: false, reason: "key_limit", message: `An account may have at most ${maxActive} active keys; revoke one first.` };
    }
    return { ok: true, value: { id: Number(id), key, prefix } };
  }

  async list(accountName: string): Promise<ControlResult<KeyView[]>> {
    const account = await this.accounts.find(accountName);
    if (!account) return noAccount(accountName);
    const rows = await this.db
      .select({ id: apiKeys.id, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, revokedAt: apiKeys.revokedAt })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, account.id))
      .orderBy(asc(apiKeys.id));
    return { ok: true, value: rows.map(keyView) };
  }

  /** Revokes a key; refused on the account's very next request. Revoking twice is harmless. */
  async revoke(keyId: number): Promise<ControlResult<KeyView>> {
    await this.commit(sql`(select ${apiKeys.accountId} from ${apiKeys} where ${apiKeys.id} = ${keyId})`, [
      this.db
        .update(apiKeys)
        .set({ revokedAt: new Date().toISOString() })
        .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt))),
    ]);
    const [row] = await this.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    if (!row) return { ok: false, reason: "not_found", message: `No key with id ${keyId}.` };
    return { ok: true, value: keyView(row) };
  }
}

function keyView(row: { id: number; prefix: string; createdAt: string; revokedAt: string | null }): KeyView {
  return { id: row.id, prefix: row.prefix, createdAt: isoTimestamp(row.createdAt), revokedAt: isoTimestamp(row.revokedAt) };
}
