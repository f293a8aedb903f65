const utf8 = new TextDecoder("utf-8");

/** A fixed-width NUL-padded C string field (`[c_char; N]`) as text. */
export function readCString(bytes: Uint8Array, offset: number, width: number): string {
  let end = offset;
  const limit = offset + width;
  while (end < limit && bytes[end] !== 0) end++;
  return utf8.decode(bytes.subarray(offset, end));
}

/** A single `c_char` field as a one-character string, or null for NUL (as the JSON encoder writes it). */
export function readChar(bytes: Uint8Array, offset: number): string | null {
  const code = bytes[offset]!;
  return code === 0 ? null : String.fromCharCode(code);
}
