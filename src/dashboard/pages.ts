import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { AccountView } from "../control/accounts";
import type { KeyView } from "../control/keys";
import { MCP_KEY_VARIABLE, type UsageSnippets } from "../reference/usage-snippets";

type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

export type Section = "overview" | "keys" | "billing";

/** Every page: no inline script or style (the CSP forbids both), one stylesheet, one small script. */
export function layout(title: string, body: Markup, nav?: { current: Section }): Markup {
  const link = (section: Section, href: string, label: string) =>
    html`<a href="${href}" ${nav?.current === section ? html`aria-current="page"` : ""}>${label}</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Options Data Service</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <span class="brand">Options Data Service</span>
          ${
            nav
              ? html`<nav aria-label="Dashboard">
                  ${link("overview", "/dashboard", "Overview")} ${link("keys", "/dashboard/keys", "API keys")}
                  ${link("billing", "/dashboard/billing", "Billing")}
                  <form method="post" action="/dashboard/logout" class="inline">
                    <button type="submit" class="link">Sign out</button>
                  </form>
                </nav>`
              : ""
          }
        </header>
        <main id="main">
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}

export function signInPage(options: { configured: boolean }): Markup {
  return layout(
    "Sign in",
    options.configured
      ? html`<p>Sign in with your existing account to manage API keys, your trial and billing.</p>
          <p><a class="button" href="/dashboard/login">Sign in with single sign-on</a></p>`
      : html`<p role="alert">Single sign-on is not configured on this deployment (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET).</p>`,
  );
}

/** A page for a refused action or a failed sign-in: what happened and where to go next. */
export function messagePage(title: string, message: string, next: { href: string; label: string }, signedIn = false): Markup {
  return layout(
    title,
    html`<p role="alert">${message}</p>
      <p><a href="${next.href}">${next.label}</a></p>`,
    signedIn ? { current: "overview" } : undefined,
  );
}

/** Thirty ET days of request counts as server-drawn SVG bars (no script), with a text equivalent. */
export function usageChart(days: { date: string; requests: number }[]): Markup {
  const width = 600;
  const height = 140;
  const top = Math.max(1, ...days.map((d) => d.requests));
  const slot = width / days.length;
  const total = days.reduce((sum, d) => sum + d.requests, 0);
  const first = days[0]?.date ?? "";
  const last = days.at(-1)?.date ?? "";
  return html`<figure>
    <svg class="chart" viewBox="0 0 ${width} ${height + 16}" role="img" aria-labelledby="usage-title">
      <title id="usage-title">Requests per day, ${first} to ${last}: ${total} in all, at most ${top} in a day</title>
      ${days.map((d, i) => {
        const h = Math.round((d.requests / top) * height);
        return html`<rect x="${(i * slot + 1).toFixed(1)}" y="${height - h}" width="${(slot - 2).toFixed(1)}" height="${h}">
          <title>${d.date}: ${d.requests}</title>
        </rect>`;
      })}
      <line class="axis" x1="0" y1="${height}" x2="${width}" y2="${height}" />
      <text x="0" y="${height + 12}">${first}</text>
      <text x="${width}" y="${height + 12}" text-anchor="end">${last}</text>
    </svg>
    <figcaption>Requests per US Eastern day, last 30 days (${total} in all).</figcaption>
  </figure>`;
}

export interface OverviewData {
  account: AccountView;
  email: string | null;
  entitled: boolean;
  reason: string | null;
  requestsToday: number;
  trialDaysLeft: number | null;
  canStartTrial: boolean;
  usage: { date: string; requests: number }[];
}

export function overviewPage(d: OverviewData): Markup {
  const sub = d.account.subscription;
  return layout(
    "Overview",
    html`<dl class="facts">
        <dt>Account</dt>
        <dd>${d.email ?? d.account.name}</dd>
        <dt>Plan</dt>
        <dd>${sub?.plan ?? "none"}</dd>
        <dt>Subscription status</dt>
        <dd>${sub?.status ?? "none"}${d.entitled ? "" : html` <span class="warn">(API access: ${d.reason})</span>`}</dd>
        ${
          d.trialDaysLeft !== null
            ? html`<dt>Trial days left</dt>
                <dd>${d.trialDaysLeft}</dd>`
            : ""
        }
        <dt>Requests today (US Eastern day)</dt>
        <dd>${d.requestsToday}</dd>
      </dl>
      ${usageChart(d.usage)}
      ${
        d.canStartTrial
          ? html`<form method="post" action="/dashboard/trial">
              <p>Try the API free for 14 days, no card needed (once per account).</p>
              <button type="submit">Start 14-day trial</button>
            </form>`
          : ""
      }
      <p><a href="/docs">API reference</a></p>`,
    { current: "overview" },
  );
}

export function keysPage(
  keys: KeyView[],
  options: { created?: { key: string; prefix: string; snippets: UsageSnippets }; error?: string; maxActive: number },
): Markup {
  const active = keys.filter((k) => k.revokedAt === null).length;
  const snippet = (id: string, label: string, text: string) =>
    html`<div class="snippet">
      <label for="${id}">${label}</label>
      <textarea id="${id}" class="key" readonly wrap="off" rows="${text.split("\n").length + 1}">${text}</textarea>
      <button type="button" data-copy="${id}">Copy</button>
    </div>`;
  return layout(
    "API keys",
    html`${
        options.created
          ? html`<section class="notice" aria-labelledby="new-key">
              <h2 id="new-key">Your new key</h2>
              <p>Copy it now: it is shown this once and cannot be shown again.</p>
              <label for="created-key">API key</label>
              <input id="created-key" class="key" type="text" readonly value="${options.created.key}" />
              <button type="button" data-copy="created-key">Copy</button>
              <h3>Use it now</h3>
              ${snippet("use-curl", "HTTP (curl)", options.created.snippets.curl)}
              ${snippet("use-sdk", "TypeScript SDK (sdk/ in the repository; keep the key out of source control)", options.created.snippets.sdk)}
              ${snippet(
                "use-mcp",
                `MCP client configuration (Claude Code's .mcp.json, which is committed: the key is read from ${MCP_KEY_VARIABLE}, not written in it)`,
                options.created.snippets.mcp,
              )}
              ${snippet(
                "use-mcp-key",
                `The key for it, in the environment the client starts in (a shell profile or a secret manager, not the repository)`,
                options.created.snippets.mcpKey,
              )}
              ${snippet("use-stream", "Push: options flow as it prints (Server-Sent Events)", options.created.snippets.stream)}
              ${snippet(
                "use-websocket",
                'Push over a WebSocket (websocat, then the subscribe message; acknowledge with {"type":"ack","seq":n} as you read, or the SDK\'s ods.stream does it)',
                options.created.snippets.websocket,
              )}
            </section>`
          : ""
      }
      ${options.error ? html`<p role="alert" class="error">${options.error}</p>` : ""}
      <p>${active} of ${options.maxActive} active keys.</p>
      <form method="post" action="/dashboard/keys">
        <button type="submit">Create key</button>
      </form>
      <table>
        <caption>
          Your keys
        </caption>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Created</th>
            <th scope="col">Revoked</th>
            <th scope="col"><span class="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          ${keys.map(
            (k) =>
              html`<tr>
                <td><code>${k.prefix}…</code></td>
                <td>${k.createdAt}</td>
                <td>${k.revokedAt ?? "—"}</td>
                <td>
                  ${k.revokedAt === null ? html`<a href="/dashboard/keys/${k.id}/revoke" aria-label="Revoke ${k.prefix}…">Revoke</a>` : ""}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>`,
    { current: "keys" },
  );
}

export function revokePage(key: KeyView): Markup {
  return layout(
    "Revoke key",
    html`<p>Revoke <code>${key.prefix}…</code>? Requests with it are refused from the very next one. This cannot be undone.</p>
      <form method="post" action="/dashboard/keys/${key.id}/revoke">
        <button type="submit" class="danger">Revoke key</button>
        <a href="/dashboard/keys">Cancel</a>
      </form>`,
    { current: "keys" },
  );
}

export interface BillingData {
  configured: boolean;
  subscription: AccountView["subscription"];
  canSubscribe: boolean;
  canManage: boolean;
  notice?: string;
}

export function billingPage(d: BillingData): Markup {
  if (!d.configured) {
    return layout("Billing", html`<p>Billing is not configured on this deployment. Your subscription is managed by the operator.</p>`, {
      current: "billing",
    });
  }
  return layout(
    "Billing",
    html`${d.notice ? html`<p role="status" class="notice">${d.notice}</p>` : ""}
      <dl class="facts">
        <dt>Plan</dt>
        <dd>${d.subscription?.plan ?? "none"}</dd>
        <dt>Subscription status</dt>
        <dd>${d.subscription?.status ?? "none"}</dd>
      </dl>
      ${
        d.canSubscribe
          ? html`<form method="post" action="/dashboard/billing/checkout">
              <p>Basic: the whole API, 300 requests a minute. You pay on Stripe's secure page.</p>
              <button type="submit">Subscribe to Basic</button>
            </form>`
          : ""
      }
      ${
        d.canManage
          ? html`<form method="post" action="/dashboard/billing/portal">
              <p>Change your payment method, download invoices or cancel on Stripe's customer portal.</p>
              <button type="submit">Manage billing</button>
            </form>`
          : ""
      }`,
    { current: "billing" },
  );
}
