import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { neon, neonConfig } from "@neondatabase/serverless";
import { resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInInBrowser } from "../support/browser-sign-in";
import { chromiumLaunchOptions } from "../support/chromium";
import { sharedWorker } from "../support/http-accounts";
import { testSqlPassword } from "../support/sql-password";

/** Every page is photographed on each run, for a human to look at (git-ignored). */
const SHOTS = resolve(".screenshots/dashboard");

/** The Node-side tests' shared `wrangler dev`, signing in against the local OpenID provider. */
let base: string;
let browser: Browser;

beforeAll(async () => {
  base = sharedWorker().url;
  // The pinned npm build (unpacked on first use) unless CHROMIUM_PATH names another: test/support/chromium.ts.
  const launchOptions = chromiumLaunchOptions();
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch(launchOptions);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies(`${base}/dashboard`)).find((c) => c.name === "ods_session");
  if (!cookie) throw new Error("no session cookie");
  return cookie.value;
}

/** A form post as another site (or a script without a browser) would send it. */
function forgedPost(path: string, cookie: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: `ods_session=${cookie}`, "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body: "",
  });
}

const activeKeyCount = async (page: Page) => Number((await page.getByText(/of 5 active keys/).textContent())?.split(" ")[0]);

describe("developer dashboard in Chromium", () => {
  it("signs in, starts the trial, creates a key that works, revokes it, hits the cap, and signs out", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await shot(page, "01-sign-in");

    const login = `dev-${Date.now()}@example.com`;
    const callback = await signInInBrowser(page, base, login);
    await expect(page.getByRole("heading", { name: "Overview" }).isVisible()).resolves.toBe(true);
    // The account was created at this first sign-in and shows the identity's email.
    expect(await page.locator("dl.facts").textContent()).toContain(login);
    await shot(page, "02-overview-new-account");

    // Trial: once per account, no card; the overview shows it.
    await page.getByRole("button", { name: "Start 14-day trial" }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.locator("dl.facts").textContent()).toMatch(/trialing[\s\S]*Trial days left\s*14/);
    expect(await page.getByRole("button", { name: "Start 14-day trial" }).count()).toBe(0);
    await shot(page, "03-overview-trial");

    // A key, shown once, answers the API.
    await page.getByRole("link", { name: "API keys" }).click();
    await shot(page, "04-keys-empty");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#created-key").inputValue();
    expect(key).toMatch(/^ods_live_[0-9A-Za-z]{49}$/);
    await shot(page, "05-key-created");
    const api = (path: string) => fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });
    expect((await api("/v1/expirations/SPY")).status).toBe(200);
    // Beside it, the three ways to use it, filled in: the MCP configuration, its `${ODS_API_KEY}` expanded from the
    // variable the page sets (as Claude Code expands it), connects through the official client.
    expect(await page.locator("#use-curl").inputValue()).toContain(`Bearer ${key}`);
    expect(await page.locator("#use-sdk").inputValue()).toContain(`apiKey: "${key}"`);
    const mcpConfig = JSON.parse(await page.locator("#use-mcp").inputValue()) as {
      mcpServers: Record<string, { url: string; headers: Record<string, string> }>;
    };
    const server = Object.values(mcpConfig.mcpServers)[0]!;
    expect(JSON.stringify(mcpConfig)).not.toContain(key);
    const variable = /^export ([A-Z_]+)="(.*)"$/.exec(await page.locator("#use-mcp-key").inputValue());
    expect(variable?.[2]).toBe(key);
    const expand = (value: string) => value.replaceAll(`\${${variable![1]}}`, variable![2]!);
    const headers = Object.fromEntries(Object.entries(server.headers).map(([name, value]) => [name, expand(value)]));
    expect(headers.Authorization).toBe(`Bearer ${key}`);
    const mcp = new Client({ name: "dashboard-snippet", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(10);
    await mcp.close();
    const copyMcp = page.locator('button[data-copy="use-mcp"]');
    await copyMcp.click();
    // The clipboard write settles after the click: wait for the button to say so.
    await expect.poll(() => copyMcp.textContent(), { timeout: 5_000 }).toBe("Copied");
    // The key is never shown again.
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.content()).not.toContain(key);
    expect(await page.getByText(key.slice(0, 16)).count()).toBe(1);

    // Revoke with confirmation: the very next API call is refused.
    await page.getByRole("link", { name: "Revoke" }).click();
    await shot(page, "06-revoke-confirm");
    await page.getByRole("button", { name: "Revoke key" }).click();
    await page.waitForURL(`${base}/dashboard/keys`);
    expect((await api("/v1/expirations/SPY")).status).toBe(401);
    expect(await activeKeyCount(page)).toBe(0);

    // The cap: five active keys, the sixth refused with a clear message.
    for (let i = 0; i < 5; i++) {
      await page.getByRole("button", { name: "Create key" }).click();
      await page.locator("#created-key").waitFor();
    }
    await page.getByRole("button", { name: "Create key" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/at most 5 active keys/);
    expect(await activeKeyCount(page)).toBe(5);
    expect(await page.locator("#created-key").count()).toBe(0);
    await shot(page, "07-key-cap");

    await page.getByRole("link", { name: "Billing" }).click();
    await expect(page.getByText("Billing is not configured").isVisible()).resolves.toBe(true);
    await shot(page, "08-billing");

    // The API reference, linked from the overview, rendered by Redoc from /openapi.json with our CSP.
    const violations: string[] = [];
    page.on("console", (msg) => {
      if (msg.type() === "error" && /Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    await page.getByRole("link", { name: "Overview" }).click();
    await page.getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(`${base}/docs`);
    await page.getByRole("heading", { name: "Readiness" }).first().waitFor({ timeout: 30_000 });
    await shot(page, "10-api-reference");
    // Only Redoc's "powered by" logo, from its CDN, is blocked, on purpose: nothing loads from another origin.
    expect(violations.filter((v) => !v.includes("Loading the image 'https://cdn.redoc.ly/"))).toEqual([]);
    await page.goto(`${base}/dashboard/billing`);

    // A second trial is refused and changes nothing.
    const cookie = await sessionCookie(context);
    const again = await forgedPost("/dashboard/trial", cookie, { Origin: base });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already used its free trial");

    // Replaying the provider's callback (same state and code) opens nothing.
    const replay = await fetch(callback, { redirect: "manual" });
    expect(replay.status).toBe(400);
    expect(replay.headers.get("set-cookie") ?? "").not.toContain("ods_session=ods_sess_");

    // Sign out: the old cookie no longer opens the dashboard.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(`${base}/dashboard`);
    await expect(page.getByRole("link", { name: "Sign in with single sign-on" }).isVisible()).resolves.toBe(true);
    const after = await fetch(`${base}/dashboard/keys`, { headers: { Cookie: `ods_session=${cookie}` }, redirect: "manual" });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toBe("/dashboard");
    await context.close();
  }, 120_000);

  it("refuses forged forms, foreign cookies, API keys on pages and session tokens on the API", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInInBrowser(page, base, `guard-${Date.now()}@example.com`);
    const cookie = await sessionCookie(context);

    // Security headers and the cookie's attributes.
    const res = await fetch(`${base}/dashboard`, { headers: { Cookie: `ods_session=${cookie}` } });
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const stored = (await context.cookies(`${base}/dashboard`)).find((c) => c.name === "ods_session");
    expect(stored).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/dashboard" });
    // 43 random characters and a 32-character MAC (SESSION_SECRET).
    expect(cookie).toMatch(/^ods_sess_[0-9A-Za-z]{75}$/);

    // A form from another origin, or with no origin at all, creates nothing.
    for (const headers of [{ Origin: "https://evil.example" }, {}] as Record<string, string>[]) {
      const forged = await forgedPost("/dashboard/keys", cookie, headers);
      expect(forged.status).toBe(403);
      expect(await forged.text()).toContain("nothing was changed");
    }
    await page.goto(`${base}/dashboard/keys`);
    expect(await activeKeyCount(page)).toBe(0);

    // Keyboard first: the skip link, then the navigation in reading order.
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Skip to content");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement?.textContent")).toBe("Overview");
    // On a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/billing"]) {
      await page.goto(`${base}${path}`);
      expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);
    }
    await page.goto(`${base}/dashboard/keys`);
    await shot(page, "11-keys-phone");

    // The session token is not an API credential, and an API key is not a session.
    const onApi = await fetch(`${base}/v1/usage`, { headers: { Authorization: `Bearer ${cookie}` } });
    expect(onApi.status).toBe(403);
    expect(((await onApi.json()) as { error: string }).error).toBe("wrong_credential_type");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.locator("#created-key").inputValue();
    for (const headers of [
      { Authorization: `Bearer ${key}` },
      { Cookie: `ods_session=${key}` },
      { Cookie: "ods_session=ods_sess_0123456789012345678901234567890123456789012" },
    ] as Record<string, string>[]) {
      const denied = await fetch(`${base}/dashboard/keys`, { headers, redirect: "manual" });
      expect(denied.status).toBe(303);
    }

    // Signing in again in this browser ends the session it held before.
    await page.goto(`${base}/dashboard/login`);
    await page.waitForURL(`${base}/dashboard`);
    const renewed = await sessionCookie(context);
    expect(renewed).not.toBe(cookie);
    const keysWith = (token: string) =>
      fetch(`${base}/dashboard/keys`, { headers: { Cookie: `ods_session=${token}` }, redirect: "manual" });
    expect((await keysWith(cookie)).status).toBe(303);
    expect((await keysWith(renewed)).status).toBe(200);
    await context.close();
  }, 120_000);

  it("refuses a tampered state or code, a wrong nonce, a replayed callback and a callback from another browser", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The browser holds a session at the provider, so each authorization request comes straight back with a code.
    await signInInBrowser(page, base, `state-${Date.now()}@example.com`);
    /** A sign-in started by this test (it holds the login cookie), the code fetched by the browser. */
    const begin = async () => {
      const res = await fetch(`${base}/dashboard/login`, { redirect: "manual" });
      const cookie = /ods_login=([0-9A-Za-z]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";
      let callback = "";
      page.on("request", (req) => {
        if (req.url().startsWith(`${base}/dashboard/callback`)) callback = req.url();
      });
      // The browser has no login cookie for this attempt: its own arrival at the callback is refused and spends nothing.
      const browserArrival = await page.goto(res.headers.get("location") ?? "");
      expect(browserArrival?.status()).toBe(400);
      return { cookie, callback: new URL(callback) };
    };
    const finish = (url: URL, cookie: string) => fetch(url, { headers: { Cookie: `ods_login=${cookie}` }, redirect: "manual" });
    const opensSession = (res: Response) => (res.headers.get("set-cookie") ?? "").includes("ods_session=ods_sess_");

    const tamperedState = await begin();
    const forged = new URL(tamperedState.callback);
    forged.searchParams.set("state", `${forged.searchParams.get("state")}x`);
    const refused = await finish(forged, tamperedState.cookie);
    expect(refused.status).toBe(400);
    expect(opensSession(refused)).toBe(false);
    // The attempt is spent: even the genuine callback now fails.
    expect((await finish(tamperedState.callback, tamperedState.cookie)).status).toBe(400);

    const tamperedCode = await begin();
    tamperedCode.callback.searchParams.set("code", `${tamperedCode.callback.searchParams.get("code")}x`);
    const badCode = await finish(tamperedCode.callback, tamperedCode.cookie);
    expect(badCode.status).toBe(400);
    expect(await badCode.text()).toContain("could not be verified");

    // An ID token whose nonce is not the one this sign-in sent (the stored nonce swapped, as a
    // token minted for another sign-in would present it) is refused by the ID-token validation.
    const wrongNonce = await begin();
    neonConfig.fetchEndpoint = (host, p) => `http://${host}:${p}/sql`;
    const control = neon(`postgresql://app:${testSqlPassword()}@127.0.0.1:${process.env.TEST_SQL_PORT}/control`);
    const idHash = createHash("sha256").update(wrongNonce.cookie).digest("hex");
    await control.query("update login_attempts set nonce = 'a-nonce-of-another-sign-in' where id_hash = $1", [idHash]);
    const badNonce = await finish(wrongNonce.callback, wrongNonce.cookie);
    expect(badNonce.status).toBe(400);
    expect(opensSession(badNonce)).toBe(false);

    const genuine = await begin();
    const ok = await finish(genuine.callback, genuine.cookie);
    expect(ok.status).toBe(303);
    expect(opensSession(ok)).toBe(true);
    const replayed = await finish(genuine.callback, genuine.cookie);
    expect(replayed.status).toBe(400);
    expect(opensSession(replayed)).toBe(false);
    await shot(page, "09-sign-in-failed");
    await context.close();
  }, 120_000);
});
