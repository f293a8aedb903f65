import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/free-port";
import { chromiumLaunchOptions } from "../support/chromium";

/**
 * Billing in `npm run dev`, clicked through in Chromium: sign in at the local provider, start the
 * trial, subscribe on the Stripe stand-in's Checkout page, see Basic active, cancel in its portal,
 * see the subscription canceled. Every step goes through the Worker's real webhook.
 */

const SHOTS = resolve(".screenshots/dev-billing");
const START_TIMEOUT_MS = 90_000;
let devDir: string;
let dev: ChildProcess | undefined;
let exited: Promise<number | null>;
let output = "";
let base: string;
let stripeBase: string;
let browser: Browser;

beforeAll(async () => {
  const launchOptions = chromiumLaunchOptions();
  mkdirSync(SHOTS, { recursive: true });
  devDir = mkdtempSync(join(tmpdir(), "ods-dev-billing-"));
  const port = await freePort();
  const stripePort = await freePort();
  base = `http://127.0.0.1:${port}`;
  stripeBase = `http://127.0.0.1:${stripePort}`;
  const env = {
    ...process.env,
    DEV_DIR: devDir,
    PGLITE_DIR: join(devDir, "pglite"),
    DATABASE_URL: "",
    PORT: String(port),
    OIDC_PORT: String(await freePort()),
    STRIPE_PORT: String(stripePort),
  };
  // Its own process group, so wrangler and workerd under it are stopped with it.
  dev = spawn("npm", ["run", "dev", "--silent"], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  dev.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  exited = new Promise((resolve) => dev!.on("exit", (code) => resolve(code)));
  const up = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), START_TIMEOUT_MS).unref()),
    new Promise<boolean>((resolve) => {
      const poll = setInterval(() => {
        if (/demo key\s+ods_live_/.test(output)) {
          clearInterval(poll);
          resolve(true);
        }
      }, 100);
      void exited.then(() => clearInterval(poll));
    }),
  ]);
  if (!up) throw new Error(`npm run dev did not come up:\n${output}`);
  browser = await chromium.launch(launchOptions);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dev?.pid && dev.exitCode === null) {
    process.kill(-dev.pid, "SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    if (dev.exitCode === null) {
      try {
        process.kill(-dev.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
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

    await page.goto(`${base}/dashboard`);
    await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
    await page.locator("input[name=login]").fill(login);
    await page.locator("input[name=password]").fill("any password");
    await page.locator("button[type=submit]").click();
    if (await page.getByRole("button", { name: "Continue" }).isVisible()) await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${base}/dashboard`);

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
