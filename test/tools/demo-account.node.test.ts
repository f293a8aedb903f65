import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDemoKey } from "../../devkit/demo-account";
import { limitsFor } from "../../src/domain/plans";
import { adminOfSharedWorker, sharedWorker } from "../support/http-accounts";

const dir = mkdtempSync(join(tmpdir(), "ods-demo-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verifies = async (key: string) =>
  (await fetch(`${sharedWorker().url}/v1/auth/verify`, { headers: { Authorization: `Bearer ${key}` } })).status === 200;

/**
 * `npm run dev`'s demo key, as each start asks for it (devkit/dev.ts): the start-up itself is tested by
 * test/devkit/dev-server.test.ts; the keys' life across many starts and databases is tested here, a
 * call per start, with no Worker to restart.
 */
describe("npm run dev's demo key", () => {
  it("is kept per database across starts, and a database new to the account past the key cap revokes the oldest key", async () => {
    const cap = limitsFor("basic").activeKeys;
    const admin = adminOfSharedWorker();
    // Every database its own files: here all share one Worker, where another database's saved key would verify.
    const files = (database: number) => ({ ofDatabase: join(dir, `db-${database}`), current: join(dir, `current-${database}`) });
    const first = await ensureDemoKey(admin, files(0));
    expect(await ensureDemoKey(admin, files(0))).toBe(first);
    // A start on each of `cap + 1` other databases (none of whose keys verify here) needs a key of its own.
    const keys = [first];
    for (let database = 1; database <= cap + 1; database++) {
      const key = await ensureDemoKey(admin, files(database));
      expect(keys).not.toContain(key);
      keys.push(key);
    }
    const active = await admin.listKeys("demo");
    expect(active.ok && active.body.filter((k) => k.revokedAt === null).length).toBe(cap);
    // The oldest went at the cap; the newest `cap` serve, and a return to the newest database keeps its key.
    expect(await verifies(first)).toBe(false);
    for (const key of keys.slice(-cap)) expect(await verifies(key)).toBe(true);
    expect(await ensureDemoKey(admin, files(cap + 1))).toBe(keys.at(-1));
  });
});
