import type { TestProject } from "vitest/node";
import { freePort } from "../../devkit/free-port";
import { startDevOidcProvider } from "../../devkit/oidc/oidc-dev-provider";
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
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const adminToken = generateAdminToken();
  const oidc = await startDevOidcProvider({ port: await freePort(), redirectUris: [`${url}/dashboard/callback`] });
  const worker = startWorker({
    port,
    sqlPort: Number(process.env.TEST_SQL_PORT),
    sqlPassword: testSqlPassword(),
    // Market answers as of the seeded test session, as in workerd (test/support/test-clock.ts): the same on any date.
    vars: {
      ADMIN_TOKEN: adminToken,
      MARKET_CLOCK: TEST_CLOCK,
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
    },
    quiet: true,
  });
  await waitUntilUp(`${url}/health`, 90_000);
  project.provide("sharedWorker", { url, adminToken });
  return async () => {
    worker.stop();
    await oidc.close();
  };
}
