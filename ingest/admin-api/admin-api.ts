import type {
  AdminAccount,
  CreateAccountInput,
  SetSubscriptionInput,
  AdminKey,
  AdminKeys,
  NewKey,
  SnapshotRefresh,
  StreamWake,
} from "../../src/routes/admin/contracts";

/**
 * The one typed client of the Worker's admin API, typed by the admin routes' own schemas. It
 * imports nothing of Node, so the CLI, the bench and the tests in workerd all use it; how a
 * request travels (a URL and a token, or the test Worker's entry) is the transport's.
 */

export interface AdminError {
  error: string;
  message: string;
  status: number;
}

export type AdminResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: AdminError };

/** The body of a successful answer; a refusal throws with its status, code and message. */
export function bodyOf<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new Error(`admin API: ${result.status} ${result.body.error}: ${result.body.message}`);
  return result.body;
}

/** Sends one admin request: `path` from `/admin`, credentials added by the transport. */
export type AdminTransport = (path: string, init: RequestInit) => Promise<Response>;

const segment = encodeURIComponent;

export class AdminApi {
  constructor(private readonly send: AdminTransport) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<AdminResult<T>> {
    const res = await this.send(path, {
      method,
      headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json().catch(() => ({ error: "bad_response", message: "non-JSON response", status: res.status }))) as unknown;
    return res.ok ? { ok: true, status: res.status, body: parsed as T } : { ok: false, status: res.status, body: parsed as AdminError };
  }

  createAccount(input: CreateAccountInput) {
    return this.request<AdminAccount>("POST", "/admin/accounts", input);
  }
  showAccount(name: string) {
    return this.request<AdminAccount>("GET", `/admin/accounts/${segment(name)}`);
  }
  setSubscription(account: string, input: SetSubscriptionInput) {
    return this.request<AdminAccount>("PUT", `/admin/accounts/${segment(account)}/subscription`, input);
  }
  createKey(account: string) {
    return this.request<NewKey>("POST", `/admin/accounts/${segment(account)}/keys`);
  }
  listKeys(account: string) {
    return this.request<AdminKeys>("GET", `/admin/accounts/${segment(account)}/keys`);
  }
  revokeKey(id: number) {
    return this.request<AdminKey>("POST", `/admin/keys/${id}/revoke`);
  }
  /** After a load: the Worker reads the new snapshot version and serves it at once. */
  refreshSnapshot() {
    return this.request<SnapshotRefresh>("POST", "/admin/market/snapshot");
  }
  /** After a commit of prints: the stream shards read the feed now rather than at their next poll. */
  wakeStreams() {
    return this.request<StreamWake>("POST", "/admin/streams/wake");
  }
}
