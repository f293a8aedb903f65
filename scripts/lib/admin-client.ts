import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEV_DIR } from "./config";

/** Where the admin token of `npm run dev` is kept (git-ignored). */
export const DEV_ADMIN_TOKEN_FILE = join(DEV_DIR, "admin-token");
/** Where `npm run dev` writes the URL it serves on, so `npm run admin` finds it on any PORT. */
export const DEV_ADMIN_URL_FILE = join(DEV_DIR, "admin-url");

const saved = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim() : "");

export interface AdminError {
  error: string;
  message: string;
  status: number;
}

export type AdminResult<T> = { ok: true; status: number; body: T } | { ok: false; status: number; body: AdminError };

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

/**
 * The admin API's base URL, checked: https anywhere, plain http only to this machine (the token
 * would otherwise cross the network in clear). Throws with the reason.
 */
export function checkedAdminUrl(baseUrl: string): string {
  const url = URL.parse(baseUrl);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw new Error(`ADMIN_URL must be an https:// URL (got '${baseUrl}')`);
  }
  if (url.protocol === "http:" && !LOOPBACK_HOST.test(url.hostname)) {
    throw new Error(
      `refusing plain http to ${url.hostname}: the admin token would travel in clear; use https:// (plain http only to localhost/127.0.0.1/[::1])`,
    );
  }
  return baseUrl.replace(/\/+$/, "");
}

/** A client of the Worker's internal admin API. */
export class AdminClient {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly token: string,
    /** Headers for a gate in front of the admin hostname, e.g. a Cloudflare Access service token. */
    private readonly gateHeaders: Record<string, string> = {},
  ) {
    this.baseUrl = checkedAdminUrl(baseUrl);
  }

  /** From ADMIN_URL / ADMIN_TOKEN (and ADMIN_ACCESS_CLIENT_ID/_SECRET), else the local dev server's saved URL and token. */
  static fromEnvironment(): AdminClient {
    const baseUrl = process.env.ADMIN_URL || saved(DEV_ADMIN_URL_FILE) || `http://127.0.0.1:${process.env.PORT ?? 8787}`;
    const token = process.env.ADMIN_TOKEN ?? saved(DEV_ADMIN_TOKEN_FILE);
    if (!token) throw new Error("no admin token: set ADMIN_TOKEN or start `npm run dev` (it writes .dev/admin-token)");
    // Behind Cloudflare Access (README, "Deploying"): the service token's id and secret.
    const accessId = process.env.ADMIN_ACCESS_CLIENT_ID;
    const accessSecret = process.env.ADMIN_ACCESS_CLIENT_SECRET;
    const gate: Record<string, string> =
      accessId && accessSecret ? { "CF-Access-Client-Id": accessId, "CF-Access-Client-Secret": accessSecret } : {};
    return new AdminClient(baseUrl, token, gate);
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<AdminResult<T>> {
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, {
        method,
        headers: { ...this.gateHeaders, Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    } catch {
      throw new Error(`cannot reach the admin API at ${this.baseUrl} (is the service running?)`);
    }
    const parsed = (await res.json().catch(() => ({ error: "bad_response", message: "non-JSON response", status: res.status }))) as unknown;
    return res.ok ? { ok: true, status: res.status, body: parsed as T } : { ok: false, status: res.status, body: parsed as AdminError };
  }

  createAccount(input: { name: string; status?: string; plan?: string; trialEnded?: boolean }) {
    return this.request<AccountView>("POST", "/admin/accounts", input);
  }
  showAccount(name: string) {
    return this.request<AccountView>("GET", `/admin/accounts/${encodeURIComponent(name)}`);
  }
  setSubscription(account: string, input: { status: string; plan?: string; trialEnded?: boolean }) {
    return this.request<AccountView>("PUT", `/admin/accounts/${encodeURIComponent(account)}/subscription`, input);
  }
  createKey(account: string) {
    return this.request<{ id: number; key: string; prefix: string }>("POST", `/admin/accounts/${encodeURIComponent(account)}/keys`);
  }
  listKeys(account: string) {
    return this.request<{ id: number; prefix: string; createdAt: string; revokedAt: string | null }[]>(
      "GET",
      `/admin/accounts/${encodeURIComponent(account)}/keys`,
    );
  }
  /** After a load: the Worker reads the new snapshot version and serves it at once. */
  refreshSnapshot() {
    return this.request<{ version: number; asOf: string | null }>("POST", "/admin/market/snapshot");
  }
  revokeKey(id: number) {
    return this.request<{ id: number; prefix: string; createdAt: string; revokedAt: string | null }>("POST", `/admin/keys/${id}/revoke`);
  }
}

export interface AccountView {
  id: number;
  name: string;
  createdAt: string;
  subscription: { plan: string; status: string; trialEnd: string | null } | null;
}
