import type { Page } from "playwright-core";

/**
 * Signs in to the dashboard at `base` in a real browser, through the local OpenID provider's
 * login and consent pages (its development login takes any password); returns the callback URL
 * the provider sent the browser to.
 */
export async function signInInBrowser(page: Page, base: string, login: string): Promise<string> {
  let callback = "";
  page.on("request", (req) => {
    if (req.url().startsWith(`${base}/dashboard/callback`)) callback = req.url();
  });
  await page.goto(`${base}/dashboard`);
  await page.getByRole("link", { name: "Sign in with single sign-on" }).click();
  await page.locator("input[name=login]").fill(login);
  await page.locator("input[name=password]").fill("any password");
  await page.locator("button[type=submit]").click();
  // First sign-in: the provider asks for consent once.
  if (await page.getByRole("button", { name: "Continue" }).isVisible()) await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${base}/dashboard`);
  return callback;
}
