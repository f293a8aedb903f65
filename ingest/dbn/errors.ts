/** A DBN input that cannot be decoded; `offset` is the byte position (in the decompressed stream, or the line number for JSON lines) where decoding stopped. */
export class DbnDecodeError extends Error {
  override readonly name = "DbnDecodeError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} (at byte offset ${offset})`);
  }
}
