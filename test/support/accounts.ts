import { call } from "./worker";

/** The admin token of vitest.config.ts. */
export const ADMIN_TOKEN = "ods_admin_MJWHLyf9Bb9kPPf5L5fnnPNwJbxdifbVtSc2DFWgee52mfYTz";

/** A call to the internal admin API with the test token. */
export async function admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await call(path, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

export interface TestAccount {
  name: string;
  keys: { id: number; key: string; prefix: string }[];
}

let counter = 0;

/** A fresh account (unique name) with a subscription in `status` and `keys` API keys. */
export async function newAccount(
  options: { status?: string; plan?: string; trialEnded?: boolean; keys?: number } = {},
): Promise<TestAccount> {
  const name = `acct-${Date.now().toString(36)}-${++counter}-${crypto.randomUUID().slice(0, 8)}`;
  const created = await admin("POST", "/admin/accounts", {
    name,
    status: options.status ?? "active",
    plan: options.plan,
    trialEnded: options.trialEnded,
  });
  if (created.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(created.body)}`);
  const keys: TestAccount["keys"] = [];
  for (let i = 0; i < (options.keys ?? 1); i++) {
    const k = await admin<{ id: number; key: string; prefix: string }>("POST", `/admin/accounts/${name}/keys`);
    if (k.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(k.body)}`);
    keys.push(k.body);
  }
  return { name, keys };
}

export function bearer(key: string, extra: Record<string, string> = {}): RequestInit {
  return { headers: { Authorization: `Bearer ${key}`, ...extra } };
}
