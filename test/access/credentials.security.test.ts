import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/domain/api-key";
import { bearer, newAccount } from "../support/accounts";
import { probeCall } from "../support/probe-app";
import { call, callWith, expectError, testEnv } from "../support/worker";
import { freshRateWindow } from "../support/clock";

const RATE_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
const expectNoRateHeaders = (res: Response) => RATE_HEADERS.forEach((h) => expect(res.headers.get(h), h).toBeNull());
const expectRateHeaders = (res: Response) => RATE_HEADERS.forEach((h) => expect(res.headers.get(h), h).toMatch(/^\d+$/));

async function expect401(res: Response, code: "missing_api_key" | "invalid_api_key") {
  const body = await expectError(res, 401, code);
  expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer realm="options-data-service"/);
  expectNoRateHeaders(res);
  return body;
}

describe("credentials", () => {
  it("requires a key on key-only and entitled routes: 401 missing_api_key with a Bearer challenge", async () => {
    for (const path of ["/v1/auth/verify", "/v1/usage", "/v1/test/ok"]) {
      await expect401(await probeCall(path), "missing_api_key");
      await expect401(await probeCall(path, { headers: { Authorization: "Bearer" } }), "missing_api_key");
      await expect401(await probeCall(path, { headers: { Authorization: "Bearer    " } }), "missing_api_key");
    }
  });

  it("refuses malformed keys before any lookup: 401 invalid_api_key", async () => {
    const key = generateApiKey();
    const flipped = key.slice(0, 30) + (key[30] === "A" ? "B" : "A") + key.slice(31);
    const malformed = [
      key.slice(0, 57),
      `${key}0`,
      `${key.slice(0, 40)}_${key.slice(41)}`,
      `${key.slice(0, 40)}é${key.slice(41)}`,
      key.replace("ods_live_", "ODS_LIVE_"),
      key.replace("ods_live_", "Ods_live_"),
      flipped,
      "ods_live_",
      "not-a-key",
    ];
    for (const bad of malformed) {
      const body = await expect401(await probeCall("/v1/auth/verify", bearer(bad)), "invalid_api_key");
      expect(body.message).not.toContain(bad);
    }
    const twoTokens = await probeCall("/v1/auth/verify", { headers: { Authorization: `Bearer ${key} ${key}` } });
    await expect401(twoTokens, "invalid_api_key");
    const basic = await probeCall("/v1/auth/verify", { headers: { Authorization: `Basic ${btoa("user:pass")}` } });
    expect((await expect401(basic, "invalid_api_key")).message).toMatch(/Bearer/);
  });

  it("refuses keys of the retired format with a clear message", async () => {
    const old = `odk_live_${generateApiKey().slice(9)}`;
    const body = await expect401(await probeCall("/v1/auth/verify", bearer(old)), "invalid_api_key");
    expect(body.message).toMatch(/no longer accepted/);
  });

  it("refuses a well-formed key that was never issued without saying whether it exists", async () => {
    const body = await expect401(await probeCall("/v1/auth/verify", bearer(generateApiKey())), "invalid_api_key");
    expect(body.message).toBe("The API key is not valid or has been revoked.");
  });

  it("accepts the scheme in any case and extra spaces before the key", async () => {
    const { keys } = await newAccount();
    const key = keys[0]!.key;
    for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}`, `  Bearer ${key}  `]) {
      expect((await probeCall("/v1/auth/verify", { headers: { Authorization: header } })).status, header).toBe(200);
    }
  });

  it("answers 403 wrong_credential_type to a dashboard session token", async () => {
    const res = await probeCall("/v1/test/ok", bearer("ods_sess_5b2d6f0c9a8e4f1d"));
    await expectError(res, 403, "wrong_credential_type");
    expectNoRateHeaders(res);
  });

  it("answers 400 credentials_in_query to a key in the URL, before anything else", async () => {
    const key = generateApiKey();
    for (const query of [`api_key=${key}`, `apikey=x`, `apiKey=x`, `access_token=x`, `token=x`, `key=x`, `symbol=${key}`]) {
      for (const path of ["/v1/auth/verify", "/health", "/v1/test/ok"]) {
        const res = await probeCall(`${path}?${query}`, bearer(key));
        await expectError(res, 400, "credentials_in_query");
        expectNoRateHeaders(res);
      }
    }
  });

  it("finds credentials anywhere in the URL, in any case, and never echoes them", async () => {
    const key = generateApiKey();
    const session = "ods_sess_5b2d6f0c9a8e4f1d";
    const retired = `odk_live_${key.slice(9)}`;
    const urls = [
      `/v1/test/ok?${key}`,
      `/v1/test/ok?${key}=1`,
      `/v1/test/ok?note=prefix-${session}`,
      `/v1/test/ok?symbol=${retired}`,
      `/v1/test/ok?API_KEY=x`,
      `/v1/test/ok?Authorization=Bearer%20x`,
      `/v1/test/ok?Token=x`,
      `/v1/test/ok?x=${key.toUpperCase()}`,
      `/${key}`,
      `/v1/quotes/${key}`,
      `/v1/${encodeURIComponent(session)}/x`,
    ];
    for (const url of urls) {
      const res = await probeCall(url);
      const body = await expectError(res, 400, "credentials_in_query");
      expect(JSON.stringify(body), url).not.toMatch(/ods_live_|ods_sess_|odk_/i);
      expectNoRateHeaders(res);
    }
  });

  it("locks an address out after repeated failures: 429 too_many_auth_failures with Retry-After", async () => {
    const ip = "203.0.113.77";
    const { keys } = await newAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push((await probeCall("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": ip }))).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.at(-1)).toBe(429);
    const locked = await probeCall("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": ip }));
    await expectError(locked, 429, "too_many_auth_failures");
    expect(Number(locked.headers.get("Retry-After"))).toBeGreaterThan(0);
    expectNoRateHeaders(locked);
    // One rule on every isolate: a valid key passes, every failure is refused; other addresses are unaffected.
    expect((await probeCall("/v1/auth/verify", bearer(keys[0]!.key, { "CF-Connecting-IP": ip }))).status).toBe(200);
    await expectError(await call("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": ip })), 429, "too_many_auth_failures");
    await expectError(await call("/v1/auth/verify", { headers: { "CF-Connecting-IP": ip } }), 429, "too_many_auth_failures");
    expect((await probeCall("/v1/auth/verify", bearer(generateApiKey(), { "CF-Connecting-IP": "203.0.113.78" }))).status).toBe(401);
  });
});

/** What the credential check matched before it looked for whole keys: `odk_` and eight more characters anywhere. */
const OLD_CREDENTIAL_SHAPE = /(ods_live_|ods_sess_|odk_)[0-9a-z_]{8}/i;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/**
 * The position of a real cursor re-signed with the test's cursor secret, with JSON whitespace
 * (which does not change the position) varied until the cursor holds `odk_` and eight more
 * characters: about one cursor in 200,000 does, always in its MAC, since base64 of ASCII JSON has
 * no `_`.
 */
async function cursorHoldingOdkPrefix(cursor: string): Promise<string> {
  const secret = testEnv.CURSOR_SECRET.split(",")[0]!.trim();
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const json = new TextDecoder().decode(
    Uint8Array.from(atob(cursor.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)),
  );
  // Whitespace may follow every `[` and `,` outside strings.
  const pieces: string[] = [];
  let inString = false;
  let start = 0;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i]!;
    if (ch === '"' && json[i - 1] !== "\\") inString = !inString;
    if (!inString && (ch === "[" || ch === ",")) {
      pieces.push(json.slice(start, i + 1));
      start = i + 1;
    }
  }
  pieces.push(json.slice(start));
  const SPACES = ["", " ", "\n", "\t", "\r", "  ", " \n", "\n "];
  const variant = (n: number) =>
    pieces.map((piece, i) => piece + (i < pieces.length - 1 ? SPACES[Math.floor(n / SPACES.length ** i) % SPACES.length] : "")).join("");
  for (let batch = 0; batch < 5_000; batch++) {
    const payloads = Array.from({ length: 1_000 }, (_, j) => base64url(new TextEncoder().encode(variant(batch * 1_000 + j))));
    const macs = await Promise.all(payloads.map((p) => crypto.subtle.sign("HMAC", key, new TextEncoder().encode(p))));
    for (let j = 0; j < payloads.length; j++) {
      const candidate = `${payloads[j]}.${base64url(new Uint8Array(macs[j]!).slice(0, 16))}`;
      if (OLD_CREDENTIAL_SHAPE.test(candidate)) return candidate;
    }
  }
  throw new Error("no variant of the cursor holds the prefix");
}

describe("credentials in URLs: only whole keys and session tokens, never cursors or the sign-in callback", () => {
  it("continues a chain page whose cursor holds `odk_` and eight more characters", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const page1 = (await (await call("/v1/chain/SPY?limit=5", auth)).json()) as { nextCursor: string };
    const expected = await (await call(`/v1/chain/SPY?limit=5&cursor=${encodeURIComponent(page1.nextCursor)}`, auth)).json();
    const cursor = await cursorHoldingOdkPrefix(page1.nextCursor);
    expect(cursor).toMatch(OLD_CREDENTIAL_SHAPE);
    const res = await call(`/v1/chain/SPY?limit=5&cursor=${encodeURIComponent(cursor)}`, auth);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual(expected);
  });

  it("passes cursors and the callback's code and state through, whatever they hold", async () => {
    for (const query of [
      "cursor=eyJhIjoxfQ.AbCodk_12345678xYz",
      "cursor=eyJhIjoxfQ.Ab-odk_12345678-xYz",
      "cursor=odk_12345678",
      "code=Ab-odk_12345678_Yz&state=odk_abcdefgh-ods_sess_x",
    ]) {
      expect((await probeCall(`/v1/test/ok?${query}`, bearer((await newAccount()).keys[0]!.key))).status, query).toBe(200);
    }
    // The dashboard's sign-in callback answers as a callback (no sign-in started here: its HTML failure page), not as a key in the URL.
    const callback = await call("/dashboard/callback?code=3vA-odk_12345678Q_xYz&state=odk_98765432-Zz");
    expect(callback.headers.get("Content-Type")).toContain("text/html");
    expect(await callback.text()).not.toContain("credentials_in_query");
  });

  it("passes text that only contains a prefix: not a whole token, or not a key's length", async () => {
    const auth = bearer((await newAccount()).keys[0]!.key);
    const key = generateApiKey();
    for (const query of [
      "note=xodk_12345678",
      "note=odk_12345678",
      `note=odk_live_${key.slice(9, 30)}`,
      `note=abc${key}`,
      "symbol=ODS_LIVE_SHORT",
    ]) {
      expect((await probeCall(`/v1/test/ok?${query}`, auth)).status, query).toBe(200);
    }
  });

  it("still refuses a whole key, retired key or session token in any other parameter, as a value or a word of one", async () => {
    const key = generateApiKey();
    const session = `ods_sess_${"Ab3".repeat(14)}x`;
    const retired = `odk_live_${key.slice(9)}`;
    for (const query of [
      `limit=${key}`,
      `symbols=SPY,${key}`,
      `note=${encodeURIComponent(`see ${key} here`)}`,
      `q=${session}`,
      `x=${retired}`,
      `Cursor=${key}`,
      `codes=${key}`,
      `api_key=not-a-key-at-all`,
      `token=abc`,
    ]) {
      const res = await probeCall(`/v1/test/ok?${query}`);
      const body = await expectError(res, 400, "credentials_in_query");
      expect(JSON.stringify(body), query).not.toMatch(/ods_live_|ods_sess_|odk_/i);
    }
  });

  it("does not search cursor, code and state values: a key there is refused as a bad cursor, never echoed", async () => {
    const { keys } = await newAccount();
    const auth = bearer(keys[0]!.key);
    const key = generateApiKey();
    const error = await expectError(await call(`/v1/chain/SPY?cursor=${key}`, auth), 400, "invalid_parameter");
    expect(error.message).toMatch(/'cursor'/);
    expect(JSON.stringify(error)).not.toContain(key);
    expect((await probeCall(`/v1/test/ok?code=${key}&state=${key}`, auth)).status).toBe(200);
  });
});

describe("origin authentication", () => {
  const secrets = { ORIGIN_AUTH_SECRETS: "first-secret-value-0123456789abcdef, second-secret-value-0123456789abcdef" };

  it("answers 403 origin_forbidden without a matching X-Origin-Auth, on public and protected routes", async () => {
    for (const path of ["/health", "/v1/auth/verify", "/nope"]) {
      const none = await callWith(secrets, path);
      await expectError(none, 403, "origin_forbidden");
      expectNoRateHeaders(none);
      await expectError(
        await callWith(secrets, path, { headers: { "X-Origin-Auth": "first-secret-value-0123456789abcdeF" } }),
        403,
        "origin_forbidden",
      );
      await expectError(
        await callWith(secrets, path, { headers: { "X-Origin-Auth": "first-secret-value-0123456789abcdef-longer" } }),
        403,
        "origin_forbidden",
      );
    }
  });

  it("accepts every secret of the rotation list", async () => {
    for (const secret of ["first-secret-value-0123456789abcdef", "second-secret-value-0123456789abcdef"]) {
      expect((await callWith(secrets, "/health", { headers: { "X-Origin-Auth": secret, "X-Client-IP": "192.0.2.20" } })).status).toBe(200);
    }
  });

  it("refuses a request through the edge that carries no valid client address, rather than pooling it with others", async () => {
    const secret = "first-secret-value-0123456789abcdef";
    for (const client of [undefined, "", "unknown", "999.1.1.1", "not an address"]) {
      const headers: Record<string, string> = { "X-Origin-Auth": secret };
      if (client !== undefined) headers["X-Client-IP"] = client;
      const res = await callWith(secrets, "/health", { headers });
      const body = await expectError(res, 403, "origin_forbidden");
      expect(body.message).toMatch(/client address/);
    }
    expect((await callWith(secrets, "/health", { headers: { "X-Origin-Auth": secret, "X-Client-IP": "2001:db8::1" } })).status).toBe(200);
  });

  it("lets Stripe's webhook deliveries in without it: their signature authenticates them", async () => {
    const res = await callWith(secrets, "/webhooks/stripe", {
      method: "POST",
      body: "{}",
      headers: { "Content-Type": "application/json" },
    });
    // Past origin authentication: refused by the webhook itself for its missing signature.
    await expectError(res, 400, "invalid_body");
    await expectError(await callWith(secrets, "/webhooks/stripe"), 403, "origin_forbidden");
  });

  it("is off when no secret is configured, also for a blank or empty list", async () => {
    for (const ORIGIN_AUTH_SECRETS of ["", "  ", " , ,"]) {
      expect((await callWith({ ORIGIN_AUTH_SECRETS }, "/health")).status, JSON.stringify(ORIGIN_AUTH_SECRETS)).toBe(200);
    }
  });
});

describe("per-IP limit on public routes", () => {
  it("answers 429 rate_limited with Retry-After after 120 calls a minute from one address, without account headers", async () => {
    await freshRateWindow(10_000);
    const ip = { "CF-Connecting-IP": "203.0.113.200" };
    let first429: Response | undefined;
    let ok = 0;
    for (let i = 0; i < 125; i++) {
      const res = await call("/health", { headers: ip });
      if (res.status === 200) ok++;
      else first429 ??= res;
    }
    expect(ok).toBe(120);
    await expectError(first429!, 429, "rate_limited");
    expect(first429!.headers.get("Retry-After")).toBe("60");
    expectNoRateHeaders(first429!);
    expect((await call("/health", { headers: { "CF-Connecting-IP": "203.0.113.201" } })).status).toBe(200);
  });
});

describe("rate-limit headers by stage", () => {
  it("are present on success and on downstream 4xx/5xx, absent on early rejections and unknown paths", async () => {
    const { keys } = await newAccount();
    const auth = bearer(keys[0]!.key);
    const ok = await probeCall("/v1/test/ok", auth);
    expect(ok.status).toBe(200);
    expectRateHeaders(ok);
    expect(ok.headers.get("X-RateLimit-Limit")).toBe("300");

    const invalid = await probeCall("/v1/test/validated?n=abc", auth);
    await expectError(invalid, 400, "invalid_parameter");
    expectRateHeaders(invalid);

    const missing = await probeCall("/v1/test/missing", auth);
    await expectError(missing, 404, "not_found");
    expectRateHeaders(missing);

    const thrown = await probeCall("/v1/test/throw", auth);
    await expectError(thrown, 500, "internal_error");
    expectRateHeaders(thrown);

    const unknown = await probeCall("/v1/unknown/path", auth);
    await expectError(unknown, 404, "not_found");
    expectNoRateHeaders(unknown);

    const head = await probeCall("/v1/test/ok", { ...auth, method: "HEAD" });
    expect(head.status).toBe(200);
    expectRateHeaders(head);
  });
});
