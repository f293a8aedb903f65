import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInInBrowser } from "../support/browser-sign-in";
import { chromiumLaunchOptions } from "../support/chromium";
import { killDev, startDev, stopDev, type DevRun } from "../support/dev-process";

/**
 * Billing in `npm run dev`, clicked through in Chromium: sign in at the local provider, start the
 * trial, subscribe on the Stripe stand-in's Checkout page, see Basic active, cancel in its portal,
 * see the subscription canceled. Every step goes through the Worker's real webhook.
 */

const SHOTS = resolve(".screenshots/dev-billing");
let devDir: string;
let dev: DevRun | undefined;
let base: string;
let stripeBase: string;
let browser: Browser;

beforeAll(async () => {
  const launchOptions = chromiumLaunchOptions();
  mkdirSync(SHOTS, { recursive: true });
  devDir = mkdtempSync(join(tmpdir(), "ods-dev-billing-"));
  dev = await startDev(devDir, { PGLITE_DIR: join(devDir, "pglite") });
  if (!dev.up) throw new Error(`npm run dev did not come up:\n${dev.output()}`);
  stripeBase = /Stripe stand-in \((http:\/\/[^)]+)\)/.exec(dev.output())?.[1] ?? "";
  base = dev.base;
  browser = await chromium.launch(launchOptions);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dev) {
    const run = dev;
    await Promise.race([stopDev(run), new Promise((r) => setTimeout(r, 15_000))]);
    killDev(run);
  }
  if (devDir) rmSync(devDir, { recursive: true, force: true });
}, 60_000);

describe("billing in npm run dev", () => {
  it("keeps its webhook secret in DEV_DIR, readable only by its owner", () => {
    const file = join(devDir, "stripe-webhook-secret");
    expect(readFileSync(file, "utf8").trim()).toMatch(/^whsec_[A-Za-z0-9]{32,}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("goes from trial to Basic and back through the dashboard and the local Checkout and portal pages", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const login = `buyer-${Date.now()}@example.com`;

    await signInInBrowser(page, base, login);

    await page.getByRole("button", { name: "Start 14-day trial" }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.locator("dl.facts").textContent()).toMatch(/trialing/);

    await page.getByRole("link", { name: "Billing" }).click();
    await page.waitForURL(`${base}/dashboard/billing`);
    await page.getByRole("button", { name: "Subscribe to Basic" }).click();
    // The stand-in's hosted Checkout page.
    await page.waitForURL(new RegExp(`^${stripeBase}/checkout/`));
    await page.screenshot({ path: `${SHOTS}/01-checkout.png`, fullPage: true });
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(`${base}/dashboard/billing?checkout=success`);
    const facts = await page.locator("dl.facts").textContent();
    expect(facts).toMatch(/Plan\s*basic/i);
    expect(facts).toMatch(/Subscription status\s*active/);
    expect(await page.getByRole("button", { name: "Subscribe to Basic" }).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/02-basic-active.png`, fullPage: true });

    await page.getByRole("button", { name: "Manage billing" }).click();
    await page.waitForURL(new RegExp(`^${stripeBase}/portal/`));
    await page.screenshot({ path: `${SHOTS}/03-portal.png`, fullPage: true });
    await page.getByRole("button", { name: "Cancel subscription" }).click();
    await page.waitForURL(`${base}/dashboard/billing`);
    expect(await page.locator("dl.facts").textContent()).toMatch(/Subscription status\s*canceled/);
    // Canceled: Checkout is offered again.
    expect(await page.getByRole("button", { name: "Subscribe to Basic" }).count()).toBe(1);
    await page.screenshot({ path: `${SHOTS}/04-canceled.png`, fullPage: true });
    await context.close();
  }, 120_000);
});
