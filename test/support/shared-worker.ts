import type { TestProject } from "vitest/node";
import { randomBytes } from "node:crypto";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reservePort } from "../../devkit/listen";
import { DEV_OIDC_CLIENT_ID, startDevOidcProvider } from "../../devkit/oidc/oidc-dev-provider";
import { startWorker, waitUntilUp } from "../../devkit/worker-process";
import { generateAdminToken } from "../../src/domain/admin-token";
import { testSqlPassword } from "./sql-password";
import { TEST_CLOCK } from "./test-clock";

/**
 * The one `wrangler dev` the Node-side tests share (the tools that run their own, `npm run dev`, aside), as the
 * system tier's global setup gives it: its admin token, and the file its URL is written to once it answers
 * (`{"url": …}`, or `{"error": …}` when it could not start). Tests read it with `sharedWorker()`
 * (test/support/http-accounts.ts), after the tier's setup file has waited for the file (test/support/stack-ready.ts).
 */
export interface SharedWorkerSetup {
  adminToken: string;
  urlFile: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedWorker: SharedWorkerSetup;
  }
}

/**
 * The Worker under `wrangler dev` on the test database, with an admin token and the local OpenID provider for the
 * dashboard's sign-in. It starts in the background: vitest runs every global setup before any file, and the tiers
 * that do not use it need not wait for it. The edge-cache test runs its own, over the distant SQL endpoint whose
 * round trips it counts.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const adminToken = generateAdminToken();
  const folder = mkdtempSync(join(tmpdir(), "ods-shared-worker-"));
  const urlFile = join(folder, "url.json");
  const publish = (outcome: { url: string } | { error: string }) => {
    writeFileSync(`${urlFile}.partial`, JSON.stringify(outcome));
    renameSync(`${urlFile}.partial`, urlFile);
  };
  const started = startSharedWorker(adminToken).then(
    (running) => (publish({ url: running.url }), running),
    (err: unknown) => (publish({ error: err instanceof Error ? err.message : String(err) }), undefined),
  );
  project.provide("sharedWorker", { adminToken, urlFile });
  return async () => {
    await (await started)?.stop();
    rmSync(folder, { recursive: true, force: true });
  };
}

async function startSharedWorker(adminToken: string): Promise<{ url: string; stop: () => Promise<void> }> {
  // The Worker is given the provider's issuer and the provider the Worker's callback: the provider's port is bound first.
  const oidcPort = await reservePort();
  const oidcSecret = randomBytes(24).toString("hex");
  const worker = await startWorker({
    sqlPort: Number(process.env.TEST_SQL_PORT),
    sqlPassword: testSqlPassword(),
    // Market answers as of the seeded test session, as in workerd (test/support/test-clock.ts): the same on any date.
    vars: {
      ADMIN_TOKEN: adminToken,
      MARKET_CLOCK: TEST_CLOCK,
      OIDC_ISSUER: `http://127.0.0.1:${oidcPort}`,
      OIDC_CLIENT_ID: DEV_OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET: oidcSecret,
    },
    quiet: true,
  });
  const url = worker.url;
  try {
    const oidc = await startDevOidcProvider({ port: oidcPort, clientSecret: oidcSecret, redirectUris: [`${url}/dashboard/callback`] });
    await waitUntilUp(`${url}/health`, 90_000);
    return {
      url,
      stop: async () => {
        worker.stop();
        await oidc.close();
      },
    };
  } catch (err) {
    worker.stop();
    throw err;
  }
}
