import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, admin } from "./support/accounts";
import { call, callWith, expectError } from "./support/worker";

describe("internal admin API", () => {
  it("requires the admin bearer token", async () => {
    await expectError(await call("/admin/accounts/demo"), 401, "invalid_api_key");
    await expectError(await call("/admin/accounts/demo", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}x` } }), 401, "invalid_api_key");
    await expectError(await call("/admin/accounts/demo", { headers: { Authorization: "Bearer ods_live_x" } }), 401, "invalid_api_key");
  });

  it("does not exist when no admin token is configured", async () => {
    const res = await callWith({ ADMIN_TOKEN: "" }, "/admin/accounts/demo", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    await expectError(res, 404, "not_found");
  });

  it("validates bodies: 400 invalid_body for malformed JSON and bad fields", async () => {
    const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" };
    await expectError(await call("/admin/accounts", { method: "POST", headers, body: "{not json" }), 400, "invalid_body");
    await expectError(await call("/admin/accounts", { method: "POST", headers, body: JSON.stringify({ name: "" }) }), 400, "invalid_body");
    const bad = await call("/admin/accounts", { method: "POST", headers, body: JSON.stringify({ name: "x", status: "gold" }) });
    expect((await expectError(bad, 400, "invalid_body")).message).toMatch(/status/);
  });

  it("answers 404 for unknown accounts and keys, 409 for duplicate names", async () => {
    expect((await admin("GET", "/admin/accounts/no-such-account")).status).toBe(404);
    expect((await admin("POST", "/admin/keys/999999/revoke")).status).toBe(404);
    const name = `dup-${crypto.randomUUID().slice(0, 8)}`;
    expect((await admin("POST", "/admin/accounts", { name })).status).toBe(201);
    const again = await admin<{ error: string }>("POST", "/admin/accounts", { name });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("conflict");
  });

  it("is absent from the public API description", async () => {
    const doc = await (await call("/openapi.json")).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/admin"))).toBe(false);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/auth/verify", "/v1/usage"]));
  });
});
