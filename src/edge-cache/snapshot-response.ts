import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { requestToday } from "../http/request-clock";
import { versionOf, type Derived, type MarketRead } from "../market/snapshot";
import { services } from "../services";
import { memoryOf, snapshotDerived } from "./derived-cache";
import { renderedResponse, renderJson, type RenderedJson } from "./rendered-json";
import { cachedVersions } from "./market-versions";

/** A snapshot-derived value (`snapshotDerived`'s name and computation) and how a response renders it. */
export interface SnapshotView<T, B> {
  name: string;
  /** What the value depends on: underlyings, option roots, or `MARKET_WIDE`. */
  scopes: readonly string[];
  compute: (read: MarketRead) => Promise<Derived<T>>;
  render: (derived: Derived<T>) => B | Promise<B>;
  /**
   * What the body depends on beyond the request's path and query, today and the snapshot: a plan's
   * clamp, which of today's contracts have expired (`requestSettlementPhase`), the request's minute.
   */
  vary?: string;
}

/**
 * The response of a route whose body is a function of the market within the view's scopes, the
 * request's path and query as sent, today in New York and `vary`: rendered (JSON text and gzip)
 * once per isolate and version of those scopes, so a warm request costs a lookup — no rendering, serialisation or
 * compression. Keyed by the version, so an entry is never served for another snapshot; a body
 * that fails to render (an unknown symbol) is not kept.
 */
export async function snapshotResponse<T, B>(c: Context<AppEnv>, view: SnapshotView<T, B>): Promise<Response> {
  const url = new URL(c.req.url);
  const keyOf = (version: string) => `response:${view.name}:v${version}:${requestToday(c)}:${url.pathname}${url.search}#${view.vary ?? ""}`;
  const { edge } = services(c);
  const memory = memoryOf(edge.cache);
  const known = await cachedVersions(edge);
  const hit = known.fresh ? memory.get<RenderedJson>(keyOf(versionOf(known.fresh, view.scopes))) : undefined;
  if (hit) return renderedResponse(c, hit);
  const derived = await snapshotDerived(edge, known, view.name, view.scopes, view.compute);
  const rendered = await renderJson(await view.render(derived));
  memory.set(keyOf(derived.snapshot.version), rendered, rendered.size);
  return renderedResponse(c, rendered);
}
