// Incremental DBN decoding: bytes arrive in chunks that may split the header or any record.
import { decodeRecord, LENGTH_MULTIPLIER, RECORD_HEADER_LEN } from "./binary-records";
import { DbnDecodeError } from "./errors";
import { decodeMetadata, metadataLength, type Metadata } from "./metadata";
import type { DbnRecord } from "./records";

/** What the decoder yields: the metadata header first, then records. */
export type DbnItem = { kind: "metadata"; metadata: Metadata } | DbnRecord;

/**
 * A push decoder: `push` each chunk and take the items it completes; `finish` at the end of input
 * reports a partial record. Unknown rtypes are skipped by their length and counted in `skipped`.
 */
export class DbnDecoder {
  metadata: Metadata | null = null;
  /** Records skipped because their rtype is not decoded, by rtype. */
  readonly skipped = new Map<number, number>();
  private buffer = new Uint8Array(4096);
  private start = 0;
  private end = 0;
  /** Stream offset of `buffer[start]`. */
  private consumed = 0;

  get skippedCount(): number {
    let total = 0;
    for (const count of this.skipped.values()) total += count;
    return total;
  }

  /** Bytes decoded so far (the stream offset of the next record). */
  get offset(): number {
    return this.consumed;
  }

  push(chunk: Uint8Array): DbnItem[] {
    this.append(chunk);
    const items: DbnItem[] = [];
    if (!this.metadata) {
      const available = this.buffer.subarray(this.start, this.end);
      const total = metadataLength(available);
      if (total === null || available.length < total) return items;
      this.metadata = decodeMetadata(available.subarray(0, total));
      this.advance(total);
      items.push({ kind: "metadata", metadata: this.metadata });
    }
    const { version, tsOut } = this.metadata;
    const view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
    while (this.end - this.start >= 1) {
      const length = this.buffer[this.start]! * LENGTH_MULTIPLIER;
      if (length < RECORD_HEADER_LEN) {
        throw new DbnDecodeError(`record length ${length} is shorter than the 16-byte header`, this.consumed);
      }
      if (this.end - this.start < length) break;
      const record = decodeRecord({
        bytes: this.buffer,
        view,
        at: this.start,
        length,
        version,
        tsOut,
        streamOffset: this.consumed,
      });
      if (record) items.push(record);
      else {
        const rtype = this.buffer[this.start + 1]!;
        this.skipped.set(rtype, (this.skipped.get(rtype) ?? 0) + 1);
      }
      this.advance(length);
    }
    return items;
  }

  /** Call at the end of input: throws if it stopped inside the header or a record. */
  finish(): void {
    const left = this.end - this.start;
    if (!this.metadata) {
      throw new DbnDecodeError(`input ended inside the metadata header (${left} bytes)`, this.consumed + left);
    }
    if (left > 0) {
      const length = this.buffer[this.start]! * LENGTH_MULTIPLIER;
      throw new DbnDecodeError(`truncated record: ${left} of ${length} bytes present at the end of input`, this.consumed);
    }
  }

  private advance(bytes: number): void {
    this.start += bytes;
    this.consumed += bytes;
    if (this.start === this.end) this.start = this.end = 0;
  }

  private append(chunk: Uint8Array): void {
    if (this.end + chunk.length > this.buffer.length) {
      const live = this.end - this.start;
      const size = live + chunk.length;
      if (size > this.buffer.length) {
        const next = new Uint8Array(size * 2);
        next.set(this.buffer.subarray(this.start, this.end), 0);
        this.buffer = next;
      } else {
        this.buffer.copyWithin(0, this.start, this.end);
      }
      this.start = 0;
      this.end = live;
    }
    this.buffer.set(chunk, this.end);
    this.end += chunk.length;
  }
}
