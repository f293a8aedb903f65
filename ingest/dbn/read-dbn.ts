// Async iteration over a DBN byte stream (file, socket, HTTP body), plain or zstd-compressed.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createZstdDecompress } from "node:zlib";
import { DbnDecoder, type DbnItem } from "./stream-decoder";

/**
 * The metadata then every record of a DBN byte stream. Pass a decoder to read its counters
 * (`skipped`, `offset`) afterwards. Throws `DbnDecodeError` on a malformed or truncated stream.
 */
export async function* readDbn(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  decoder = new DbnDecoder(),
): AsyncGenerator<DbnItem, void, undefined> {
  for await (const chunk of source) yield* decoder.push(chunk);
  decoder.finish();
}

/** Like `readDbn` for a zstd-compressed stream (`.dbn.zst`), decompressed by node:zlib. */
export function readDbnZst(
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  decoder = new DbnDecoder(),
): AsyncGenerator<DbnItem, void, undefined> {
  const decompressed = createZstdDecompress();
  // A failure on either side destroys `decompressed`, whose iteration then throws it.
  pipeline(Readable.from(source), decompressed).catch(() => undefined);
  return readDbn(decompressed, decoder);
}

/** A DBN file by path; `.zst` files are decompressed. */
export function readDbnFile(path: string, decoder = new DbnDecoder()): AsyncGenerator<DbnItem, void, undefined> {
  const file = createReadStream(path);
  return path.endsWith(".zst") ? readDbnZst(file, decoder) : readDbn(file, decoder);
}
