import { describe, expect, it } from "vitest";
import { createClient } from "../../sdk/src/index";
import { retryAfterSeconds } from "../../sdk/src/meta";
import { retryDelayMs } from "../../sdk/src/retry";

const noJitter = () => 0;
const fullJitter = () => 0.999;

describe("SDK retry policy", () => {
  it("retries 429 and 503 no sooner than Retry-After, with at most the jitter added", () => {
    expect(retryDelayMs(429, 2, 0, 0, {}, noJitter)).toBe(2000);
    expect(retryDelayMs(503, 1, 0, 0, {}, fullJitter)).toBe(1249);
    expect(retryDelayMs(429, 0, 0, 0, { jitterMs: 100 }, fullJitter)).toBe(99);
  });

  it("never retries another status", () => {
    for (const status of [400, 401, 403, 404, 405, 500, 502]) expect(retryDelayMs(status, 1, 0, 0, {}, noJitter)).toBeNull();
  });

  it("backs off 0.5 s, doubling, without Retry-After", () => {
    expect(retryDelayMs(503, null, 0, 0, {}, noJitter)).toBe(500);
    expect(retryDelayMs(503, null, 1, 500, {}, noJitter)).toBe(1000);
  });

  it("stops at the retry count and at the time budget", () => {
    expect(retryDelayMs(429, 1, 2, 2000, {}, noJitter)).toBeNull();
    expect(retryDelayMs(429, 1, 0, 0, { maxRetries: 0 }, noJitter)).toBeNull();
    // A Retry-After longer than the budget left is thrown at once (an auth lockout's 300 s, say).
    expect(retryDelayMs(429, 300, 0, 0, {}, noJitter)).toBeNull();
    expect(retryDelayMs(429, 5, 1, 26_000, { budgetMs: 30_000 }, noJitter)).toBeNull();
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterSeconds(new Headers({ "Retry-After": "7" }))).toBe(7);
    const now = Date.parse("2026-11-18T20:45:00Z");
    expect(retryAfterSeconds(new Headers({ "Retry-After": "Wed, 18 Nov 2026 20:45:03 GMT" }), now)).toBe(3);
    expect(retryAfterSeconds(new Headers({ "Retry-After": "soon" }))).toBeNull();
    expect(retryAfterSeconds(new Headers())).toBeNull();
  });
});

describe("SDK base URL", () => {
  it("takes https anywhere and plain http only to this machine, where the key cannot cross a network in clear", () => {
    for (const baseUrl of ["http://api.example.com", "http://10.0.0.5:8787", "ftp://api.example.com", "not a url"]) {
      expect(() => createClient({ baseUrl, apiKey: "k" }), baseUrl).toThrow(TypeError);
    }
    for (const baseUrl of ["https://api.example.com/", "http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787"]) {
      expect(() => createClient({ baseUrl, apiKey: "k" }), baseUrl).not.toThrow();
    }
  });
});
