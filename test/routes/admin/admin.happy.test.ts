import { describe, expect, it, vi } from "vitest";
import { adminCallRecord } from "../../../src/access/admin-gate";
import { generateAdminToken } from "../../../src/domain/admin-token";
import { createAccountRoute, getAccountRoute, setSubscriptionRoute } from "../../../src/routes/admin/accounts";
import { createKeyRoute, listKeysRoute, revokeKeyRoute } from "../../../src/routes/admin/keys";
import { refreshSnapshotRoute } from "../../../src/routes/admin/market";
import { ADMIN_TOKEN, admin } from "../../support/accounts";
import { adminAuthFrom as auth } from "../../support/admin-fixture";
import { contractBody } from "../../support/contract";
import { call, callWith } from "../../support/worker";

describe("internal admin API", () => {
  it("answers every call within its route's response schema, the types the admin client reads", async () => {
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" };
    const send = (method: string, path: string, body?: unknown) =>
      call(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const name = `contract-${crypto.randomUUID().slice(0, 8)}`;
    await contractBody(createAccountRoute, await send("POST", "/admin/accounts", { name, status: "trialing" }), 201);
    expect((await contractBody(getAccountRoute, await send("GET", `/admin/accounts/${name}`))).subscription?.trialEnd).not.toBeNull();
    await contractBody(
      setSubscriptionRoute,
      await send("PUT", `/admin/accounts/${name}/subscription`, { status: "active", plan: "basic" }),
    );
    const key = await contractBody(createKeyRoute, await send("POST", `/admin/accounts/${name}/keys`), 201);
    expect(await contractBody(listKeysRoute, await send("GET", `/admin/accounts/${name}/keys`))).toHaveLength(1);
    expect((await contractBody(revokeKeyRoute, await send("POST", `/admin/keys/${key.id}/revoke`))).revokedAt).not.toBeNull();
    await contractBody(refreshSnapshotRoute, await send("POST", "/admin/market/snapshot"));
  });

  it("is absent from the public API description", async () => {
    const doc = await (await call("/openapi.json")).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/admin"))).toBe(false);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/auth/verify", "/v1/usage"]));
  });
});

describe("admin API call log", () => {
  it("logs every admin call, refusals included: who, what, when and the outcome, never the token", async () => {
    const name = `log-${crypto.randomUUID().slice(0, 8)}`;
    expect((await admin.createAccount({ name })).status).toBe(201);
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    try {
      await callWith({}, `/admin/accounts/${name}`, auth("203.0.113.176"));
      await callWith({}, "/admin/keys/42/revoke", { method: "POST", ...auth("203.0.113.177", generateAdminToken()) });
    } finally {
      spy.mockRestore();
    }
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.event === "admin_call");
    expect(records).toEqual([
      expect.objectContaining({
        level: "info",
        client: "203.0.113.176",
        method: "GET",
        path: `/admin/accounts/${name}`,
        status: 200,
        account: name,
      }),
      expect.objectContaining({
        level: "warn",
        client: "203.0.113.177",
        method: "POST",
        path: "/admin/keys/42/revoke",
        status: 401,
        keyId: 42,
      }),
    ]);
    for (const r of records) expect(Date.parse(r.at as string)).not.toBeNaN();
    expect(lines.join("\n")).not.toMatch(/ods_admin_/);
  });

  it("builds the log record from the request alone (pure), dropping any query", () => {
    const record = adminCallRecord({
      at: new Date("2026-01-02T03:04:05Z"),
      requestId: "req-1",
      client: "192.0.2.1",
      url: "https://admin.example.com/admin/accounts/acme%20co/keys?token=x",
      method: "POST",
      status: 201,
    });
    expect(record).toEqual({
      level: "info",
      event: "admin_call",
      at: "2026-01-02T03:04:05.000Z",
      requestId: "req-1",
      client: "192.0.2.1",
      host: "admin.example.com",
      method: "POST",
      path: "/admin/accounts/acme%20co/keys",
      status: 201,
      account: "acme co",
    });
  });
});
