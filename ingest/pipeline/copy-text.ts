import type { CopyValue } from "./database";

/** How much text a chunk of COPY data holds before it is handed on. */
const CHUNK_CHARS = 1 << 16;

/** A text value escaped for COPY's text format (backslash, tab, newline, carriage return). */
function escape(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!) : text;
}

function field(value: CopyValue): string {
  if (value === null) return "\\N";
  if (typeof value === "string") return escape(value);
  return String(value);
}

/** Rows as COPY text-format data (tab-separated, `\N` for NULL, one line each), in chunks of about 64 KB. */
export function* copyText(rows: Iterable<readonly CopyValue[]>): Generator<string, void, undefined> {
  let chunk = "";
  for (const row of rows) {
    chunk += `${row.map(field).join("\t")}\n`;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk.length > 0) yield chunk;
}
