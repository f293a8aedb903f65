import { AdminApi, bodyOf } from "../../ingest/admin-api/admin-api";
import type { CreateAccountInput, NewKey } from "../../src/routes/admin/contracts";
import { call } from "./worker";

/** The admin token of vitest.config.ts. */
export const ADMIN_TOKEN = "ods_admin_MJWHLyf9Bb9kPPf5L5fnnPNwJbxdifbVtSc2DFWgee52mfYTz";

export { bodyOf };

/** The internal admin API through the test Worker's entry, with the test token. */
export const admin = new AdminApi((path, init) =>
  call(path, { ...init, headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${ADMIN_TOKEN}` } }),
);

export interface TestAccount {
  name: string;
  keys: NewKey[];
}

let counter = 0;

/** A fresh account (unique name) with a subscription in `status` and `keys` API keys. */
export async function newAccount(
  options: { status?: CreateAccountInput["status"]; plan?: string; trialEnded?: boolean; keys?: number } = {},
): Promise<TestAccount> {
  const name = `acct-${Date.now().toString(36)}-${++counter}-${crypto.randomUUID().slice(0, 8)}`;
  bodyOf(await admin.createAccount({ name, status: options.status ?? "active", plan: options.plan, trialEnded: options.trialEnded }));
  const keys: TestAccount["keys"] = [];
  for (let i = 0; i < (options.keys ?? 1); i++) keys.push(bodyOf(await admin.createKey(name)));
  return { name, keys };
}

/** The account's id, as the admin API shows it. */
export async function accountIdOf(account: TestAccount): Promise<number> {
  return bodyOf(await admin.showAccount(account.name)).id;
}

export function bearer(key: string, extra: Record<string, string> = {}): RequestInit {
  return { headers: { Authorization: `Bearer ${key}`, ...extra } };
}
