import type { Context } from "hono";
import type { AppEnv } from "../app-env";

/** A JSON body rendered once and kept: its text and, when worth it, its gzip encoding. */
export interface RenderedJson {
  text: string;
  gzip: Uint8Array<ArrayBuffer> | null;
  /** What it holds, in characters and bytes: its share of a memory budget. */
  size: number;
}

/** Below this a body goes out as it is: the gzip header and a round of compression buy nothing. */
const GZIP_MIN_CHARS = 1_024;

export async function renderJson(body: unknown): Promise<RenderedJson> {
  const text = JSON.stringify(body);
  if (text.length < GZIP_MIN_CHARS) return { text, gzip: null, size: text.length };
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  const gzip = new Uint8Array(await new Response(stream).arrayBuffer());
  return { text, gzip, size: text.length + gzip.byteLength };
}

/**
 * Whether an `Accept-Encoding` header (RFC 9110 §12.5.3) admits gzip: named (or as `x-gzip`)
 * with a non-zero weight, or covered by `*` when not refused by name.
 */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let wildcard = false;
  for (const part of header.split(",")) {
    const [coding = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const admitted = Number.isFinite(weight) && weight > 0;
    if (coding === "gzip" || coding === "x-gzip") return admitted;
    if (coding === "*") wildcard = admitted;
  }
  return wildcard;
}

/**
 * The response of a rendered body: its stored gzip bytes when the client takes gzip (marked
 * as encoded already, so the runtime sends them as they are instead of compressing every
 * request), else its text. Headers and status set on the context are kept.
 */
export function renderedResponse(c: Context<AppEnv>, rendered: RenderedJson): Response {
  c.header("Content-Type", "application/json");
  if (rendered.gzip === null) return c.body(rendered.text);
  c.header("Vary", "Accept-Encoding");
  if (!acceptsGzip(c.req.header("Accept-Encoding"))) return c.body(rendered.text);
  c.header("Content-Encoding", "gzip");
  const res = c.body(null);
  // The bytes themselves, not `res.body`: a body of known length goes out in one write, a stream chunk by chunk.
  return new Response(rendered.gzip, { status: res.status, headers: res.headers, encodeBody: "manual" });
}
