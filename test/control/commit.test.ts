import { describe, expect, it, vi } from "vitest";
import { ControlPlane } from "../../src/control/control-plane";
import type { SnapshotSink } from "../../src/control/commit";
import { database, useNeonEndpoint } from "../../src/db/client";
import type { EntitlementSnapshot } from "../../src/domain/entitlement";
import { limitsFor } from "../../src/domain/plans";
import { controlSql } from "../support/market-db";
import { testEnv } from "../support/worker";

/** A sink that records every push, and the control plane writing through it. */
function recorded(fail = false): { control: ControlPlane; pushes: EntitlementSnapshot[] } {
  useNeonEndpoint(testEnv.NEON_HTTP_ENDPOINT);
  const pushes: EntitlementSnapshot[] = [];
  const sink: SnapshotSink = {
    pushSnapshot: async (_accountId, snapshot) => {
      pushes.push(snapshot);
      if (fail) throw new Error("object unreachable");
    },
  };
  return { control: new ControlPlane(database(testEnv.CONTROL_DATABASE_URL), sink), pushes };
}

const uniqueName = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 12)}`;

const versionOf = async (accountId: number) =>
  Number((await controlSql().query("select snapshot_version from accounts where id = $1", [accountId]))[0]!.snapshot_version);

describe("every control-plane write goes through one commit", () => {
  it("moves the account's version and pushes the snapshot at that version, once per write", async () => {
    const { control, pushes } = recorded();
    const name = uniqueName("commit");
    const created = await control.accounts.create({ name });
    if (!created.ok) throw new Error(created.message);
    const id = created.value.id;
    const steps: (() => Promise<unknown>)[] = [
      () => control.subscriptions.set({ account: name, status: "active" }),
      () => control.keys.create(name),
      async () => {
        const keys = await control.keys.list(name);
        if (!keys.ok) throw new Error(keys.message);
        return control.keys.revoke(keys.value[0]!.id);
      },
    ];
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({ accountId: id, version: await versionOf(id) });
    for (const step of steps) {
      const before = await versionOf(id);
      const pushed = pushes.length;
      await step();
      expect(await versionOf(id)).toBe(before + 1);
      expect(pushes).toHaveLength(pushed + 1);
      expect(pushes.at(-1)).toMatchObject({ accountId: id, version: before + 1 });
    }
  });

  it("a first sign-in creates the account through commit; a second one writes nothing", async () => {
    const { control, pushes } = recorded();
    const identity = { issuer: "https://idp.test", subject: uniqueName("subject"), email: "someone@example.test" };
    const first = await control.identities.signIn(identity);
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({ accountId: first.id, version: await versionOf(first.id) });
    expect(await versionOf(first.id)).toBe(1);
    expect(await control.identities.signIn(identity)).toEqual(first);
    expect(pushes).toHaveLength(1);
  });

  it("a key refused at the plan's limit moves no version and pushes nothing", async () => {
    const { control, pushes } = recorded();
    const name = uniqueName("limit");
    await control.accounts.create({ name, status: "active" });
    for (let i = 0; i < limitsFor("basic").activeKeys; i++) expect((await control.keys.create(name)).ok).toBe(true);
    const id = (await control.accounts.find(name))!.id;
    const [version, pushed] = [await versionOf(id), pushes.length];
    expect(await control.keys.create(name)).toMatchObject({ ok: false, reason: "key_limit" });
    expect(await versionOf(id)).toBe(version);
    expect(pushes).toHaveLength(pushed);
  });

  it("a push that fails twice is logged once and does not fail the committed write", async () => {
    const { control, pushes } = recorded(true);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const created = await control.accounts.create({ name: uniqueName("lost"), status: "active" });
      expect(created.ok).toBe(true);
      expect(pushes).toHaveLength(2);
      const logged = warn.mock.calls.map((args) => JSON.parse(String(args[0])) as { event: string });
      expect(logged.filter((l) => l.event === "snapshot_push_failed")).toHaveLength(1);
    } finally {
      warn.mockRestore();
    }
  });
});
