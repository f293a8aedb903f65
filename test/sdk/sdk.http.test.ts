import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createClient, OdsApiError, type OdsClient } from "../../sdk/src/index";
import { earningsRoute } from "../../src/routes/calendars/earnings";
import { chainRoute } from "../../src/routes/quotes-and-options/chain";
import { screenRoute } from "../../src/routes/screener/screen";
import { ivContextRoute } from "../../src/routes/volatility/iv-context";
import { contractBody } from "../support/contract";
import { exhaustRateLimit, newHttpAccount, sharedWorker } from "../support/http-accounts";
import { TEST_SESSION } from "../support/test-clock";
import { addDays } from "../../src/domain/calendar";

/** Every request the client sends, with the status it got. */
function recordingFetch() {
  const sent: { url: string; status: number; at: number; retryAfter: string | null }[] = [];
  const fetchFn = async (request: Request) => {
    const response = await fetch(request);
    sent.push({ url: request.url, status: response.status, at: Date.now(), retryAfter: response.headers.get("Retry-After") });
    return response;
  };
  return { sent, fetchFn };
}

const asResponse = (data: unknown) => new Response(JSON.stringify(data));

describe("the TypeScript SDK against wrangler dev", () => {
  let key: string;
  let client: OdsClient;
  beforeAll(async () => {
    key = (await newHttpAccount()).key;
    client = createClient({ baseUrl: sharedWorker().url, apiKey: key });
  });

  it("calls an operation by its operationId and returns the contract's body with the rate-limit headers", async () => {
    const { data, meta } = await client.getIvContext({ symbol: "SPY" });
    await contractBody(ivContextRoute, asResponse(data));
    expect(data.symbol).toBe("SPY");
    expect(meta.status).toBe(200);
    expect(meta.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.rateLimit).toMatchObject({ limit: 300, remaining: expect.any(Number), resetSeconds: expect.any(Number) });
    expect(meta.limitClamped).toBe(false);
    expect(meta.attempts).toBe(1);
  });

  it("reads X-Limit-Clamped when the plan clamps a limit", async () => {
    const { data, meta } = await client.getChain({ symbol: "SPY", limit: 1000, maxDte: 3 });
    expect(meta.limitClamped).toBe(true);
    expect(data.contracts.length).toBeLessThanOrEqual(250);
  });

  it("iterates a chain by nextCursor: every contract once, in the pages the API cut", async () => {
    const query = { symbol: "SPY", maxDte: 10, side: "call" as const };
    const whole = await contractBody(chainRoute, asResponse((await client.getChain({ ...query, limit: 250 })).data));
    expect(whole.truncated).toBe(false);
    expect(whole.contracts.length).toBeGreaterThan(25);

    const pages = [];
    for await (const page of client.paginate.getChain({ ...query, limit: 10 }).pages()) pages.push(page);
    expect(pages.length).toBe(Math.ceil(whole.contracts.length / 10));
    expect(pages.at(-1)!.data.nextCursor).toBeNull();
    const iterated = [];
    for await (const contract of client.paginate.getChain({ ...query, limit: 10 })) iterated.push(contract.optionSymbol);
    expect(iterated.sort()).toEqual(whole.contracts.map((c) => c.optionSymbol).sort());
  });

  it("iterates a calendar by nextCursor", async () => {
    const window = { from: TEST_SESSION, to: addDays(TEST_SESSION, 80) };
    const whole = await contractBody(earningsRoute, asResponse((await client.getEarnings({ ...window, limit: 250 })).data));
    expect(whole.results.length).toBeGreaterThan(3);
    const iterated = [];
    for await (const event of client.paginate.getEarnings({ ...window, limit: 3 })) iterated.push(`${event.symbol}:${event.earningsDate}`);
    expect(iterated).toEqual(whole.results.map((e) => `${e.symbol}:${e.earningsDate}`));
  });

  it("iterates the screener by page while hasMore", async () => {
    const body = { symbols: ["SPY"], type: "put" as const, dteMax: 7, filters: [{ field: "strike", operation: "sort", value: "asc" }] };
    const whole = await contractBody(screenRoute, asResponse((await client.screenContracts({ body: { ...body, pageSize: 100 } })).data));
    expect(whole.hasMore).toBe(false);
    expect(whole.results.length).toBeGreaterThan(10);
    const pages = [];
    for await (const page of client.paginate.screenContracts({ body: { ...body, pageSize: 10 } }).pages()) pages.push(page.data);
    expect(pages.length).toBe(Math.ceil(whole.results.length / 10));
    expect(pages.flatMap((p) => p.results.map((r) => r.optionKey))).toEqual(whole.results.map((r) => r.optionKey));
  });

  it("throws one error class with the API's code, status and request_id, and retries nothing but 429 and 503", async () => {
    const { sent, fetchFn } = recordingFetch();
    const recorded = createClient({ baseUrl: sharedWorker().url, apiKey: key, fetch: fetchFn });
    const err = await recorded.getEquityQuote({ symbol: "not a symbol" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OdsApiError);
    const apiError = err as OdsApiError;
    expect(apiError).toMatchObject({ code: "invalid_parameter", status: 400, required_plan: null });
    expect(apiError.request_id).toBe(apiError.meta.requestId);
    expect(apiError.meta.rateLimit?.limit).toBe(300);
    const missing = (await recorded.getChain({ symbol: "NOSUCH" }).catch((e: unknown) => e)) as OdsApiError;
    expect(missing).toMatchObject({ code: "not_found", status: 404 });
    expect(sent.map((s) => s.status)).toEqual([400, 404]);
  });

  it("keeps required_plan on 403 plan_upgrade_required", async () => {
    const legacy = createClient({ baseUrl: sharedWorker().url, apiKey: (await newHttpAccount({ plan: "legacy-starter" })).key });
    const err = (await legacy.getIvContext({ symbol: "SPY" }).catch((e: unknown) => e)) as OdsApiError;
    expect(err).toBeInstanceOf(OdsApiError);
    expect(err).toMatchObject({ code: "plan_upgrade_required", status: 403, required_plan: "basic" });
  });

  it("retries a 429 after its Retry-After and then succeeds", async () => {
    const account = await newHttpAccount();
    await exhaustRateLimit(account.key);
    // One request conforms again every 200 ms: on a slow machine a call may pass at once, so call until one was refused first.
    let outcome: { sent: ReturnType<typeof recordingFetch>["sent"]; result: Awaited<ReturnType<OdsClient["getUsage"]>> } | undefined;
    for (let i = 0; i < 20 && !outcome; i++) {
      const { sent, fetchFn } = recordingFetch();
      const limited = createClient({ baseUrl: sharedWorker().url, apiKey: account.key, fetch: fetchFn, retry: { maxRetries: 3 } });
      const result = await limited.getUsage();
      if (sent[0]!.status === 429) outcome = { sent, result };
    }
    expect(outcome, "no call met the exhausted limit").toBeDefined();
    const { sent, result } = outcome!;
    expect(result.data.entitled).toBe(true);
    expect(sent.at(-1)!.status).toBe(200);
    expect(result.meta.attempts).toBe(sent.length);
    // Each retry waited at least the Retry-After of the refusal before it.
    for (let i = 1; i < sent.length; i++) {
      expect(sent[i]!.at - sent[i - 1]!.at).toBeGreaterThanOrEqual(Number(sent[i - 1]!.retryAfter) * 1000 - 50);
    }
  });

  it("throws rate_limited when retrying is off", async () => {
    const account = await newHttpAccount();
    await exhaustRateLimit(account.key);
    const noRetry = createClient({ baseUrl: sharedWorker().url, apiKey: account.key, retry: { maxRetries: 0 } });
    // One request conforms again every 200 ms: on a slow machine one may have by now, so call until refused.
    let err: unknown = null;
    for (let i = 0; i < 20 && !(err instanceof OdsApiError); i++)
      err = await noRetry.getUsage().then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(OdsApiError);
    if (!(err instanceof OdsApiError)) return;
    expect(err).toMatchObject({ code: "rate_limited", status: 429 });
    expect(err.meta.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(err.meta.rateLimit?.remaining).toBe(0);
  });

  it("runs its example (sdk/examples/first-calls.ts), the key in the environment", async () => {
    const { stdout } = await promisify(execFile)("node_modules/.bin/tsx", ["sdk/examples/first-calls.ts"], {
      env: { ...process.env, ODS_API_KEY: key, ODS_BASE_URL: sharedWorker().url },
    });
    expect(stdout).toMatch(/^SPY IV [\d.]+%/);
    expect(stdout).toMatch(/\d+ SPY contracts within 14 days/);
    expect(stdout).toMatch(/refused: 400 invalid_parameter/);
  });
});
