import createFetchClient from "openapi-fetch";
import { operationTable, type paths } from "./generated/api.js";
import { OdsApiError } from "./errors.js";
import { responseMeta, type ApiResult } from "./meta.js";
import type { OperationData, OperationId, OperationInput, Operations } from "./operations.js";
import { paginatedOperations, type PaginatedOperations } from "./pagination.js";
import { retryDelayMs, sleep, type RetryOptions } from "./retry.js";
import { streamChannel, type ChannelSubscription, type StreamChannel, type StreamFilters, type StreamOptions } from "./stream.js";

export interface ClientOptions {
  /** e.g. `https://api.example.com` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** `ods_live_…`, sent as `Authorization: Bearer`; never in a URL. */
  apiKey: string;
  retry?: RetryOptions;
  /** A fetch of your own (tests, proxies); the platform's by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** Push: one async iterator per subscription of `/v1/stream`, each channel with its REST twin's filters, reconnecting and resuming by itself. */
export type StreamChannels = { [C in StreamChannel]: (filters?: StreamFilters, options?: StreamOptions) => ChannelSubscription<C> };

/** The client: a typed method per operation, `paginate` for the lists, `stream` for push. */
export type OdsClient = Operations & { paginate: PaginatedOperations; stream: StreamChannels };

type LooseRequest = (
  method: string,
  path: string,
  init: { params: { path: Record<string, unknown>; query: Record<string, unknown> }; body?: unknown },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])$/i;

/** The base URL, checked: https, or plain http only to this machine, where the key does not cross a network in clear. */
function checkedBaseUrl(baseUrl: string): string {
  let url: URL | null = null;
  try {
    url = new URL(baseUrl);
  } catch {
    // reported below
  }
  if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOST.test(url.hostname)))) {
    throw new TypeError(`baseUrl must be an https:// URL (plain http only to localhost): got '${baseUrl}'`);
  }
  return baseUrl.replace(/\/+$/, "");
}

export function createClient(options: ClientOptions): OdsClient {
  const baseUrl = checkedBaseUrl(options.baseUrl);
  const raw = createFetchClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // The table gives method and path at run time; the per-operation types are enforced by `Operations` at the surface.
  const request = raw.request as unknown as LooseRequest;

  async function call<K extends OperationId>(id: K, input: OperationInput<K>): Promise<ApiResult<OperationData<K>>> {
    const { method, path: template } = operationTable[id];
    const { body, ...named } = input as Record<string, unknown>;
    const path: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(named)) (template.includes(`{${name}}`) ? path : query)[name] = value;

    let waitedMs = 0;
    for (let attempt = 1; ; attempt++) {
      const { data, error, response } = await request(method, template, {
        params: { path, query },
        ...(body !== undefined ? { body } : {}),
      });
      const meta = responseMeta(response, attempt);
      if (response.ok) return { data: data as OperationData<K>, meta };
      const delay = retryDelayMs(response.status, meta.retryAfterSeconds, attempt - 1, waitedMs, options.retry ?? {});
      if (delay === null) throw new OdsApiError(error, meta);
      waitedMs += delay;
      await sleep(delay);
    }
  }

  const methods = Object.fromEntries(
    (Object.keys(operationTable) as OperationId[]).map((id) => [id, (input?: OperationInput<typeof id>) => call(id, input ?? {})]),
  ) as unknown as Operations;
  const channel =
    <C extends StreamChannel>(name: C) =>
    (filters: StreamFilters = {}, streamOptions?: StreamOptions) =>
      streamChannel(baseUrl, options.apiKey, name, filters, streamOptions);
  const stream: StreamChannels = {
    flow: channel("flow"),
    netflow: channel("netflow"),
    quotes: channel("quotes"),
    gex: channel("gex"),
    status: channel("status"),
  };
  return { ...methods, paginate: paginatedOperations(call), stream };
}
