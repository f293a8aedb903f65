import type { TestProject } from "vitest/node";
import { randomBytes } from "node:crypto";
import { reservePort } from "../../devkit/listen";
import { DEV_OIDC_CLIENT_ID, startDevOidcProvider } from "../../devkit/oidc/oidc-dev-provider";
import { startWorker, waitUntilUp } from "../../devkit/worker-process";
import { generateAdminToken } from "../../src/domain/admin-token";
import { testSqlPassword } from "./sql-password";
import { TEST_CLOCK } from "./test-clock";

/** The one `wrangler dev` the Node-side tests share (the tools that run their own, `npm run dev`, aside). */
export interface SharedWorker {
  url: string;
  adminToken: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedWorker: SharedWorker;
  }
}

/**
 * The node project's global setup: the Worker under `wrangler dev` on the test database, with an
 * admin token and the local OpenID provider for the dashboard's sign-in. Tests read it with
 * `inject("sharedWorker")`. The edge-cache test runs its own, over the distant SQL endpoint whose
 * round trips it counts.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const adminToken = generateAdminToken();
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
  const oidc = await startDevOidcProvider({ port: oidcPort, clientSecret: oidcSecret, redirectUris: [`${url}/dashboard/callback`] });
  await waitUntilUp(`${url}/health`, 90_000);
  project.provide("sharedWorker", { url, adminToken });
  return async () => {
    worker.stop();
    await oidc.close();
  };
}
