const utf8 = new TextDecoder("utf-8");

/** A fixed-width NUL-padded C string field (`[c_char; N]`) as text. */
export function readCString(bytes: Uint8Array, offset: number, width: number): string {
  let end = offset;
  let ascii = true;
  const limit = offset + width;
  for (; end < limit && bytes[end] !== 0; end++) ascii &&= bytes[end]! < 0x80;
  // Symbols and codes are ASCII: built directly, they skip a decoder call per field (a morning's definitions hold 14 M).
  return ascii ? String.fromCharCode(...bytes.subarray(offset, end)) : utf8.decode(bytes.subarray(offset, end));
}

/** A single `c_char` field as a one-character string, or null for NUL (as the JSON encoder writes it). */
export function readChar(bytes: Uint8Array, offset: number): string | null {
  const code = bytes[offset]!;
  return code === 0 ? null : String.fromCharCode(code);
}
