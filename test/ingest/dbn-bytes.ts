/** Writes little-endian fields at explicit offsets, so tests can lay out DBN bytes by hand. */
export class LeBytes {
  readonly bytes: Uint8Array;
  private readonly view: DataView;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }

  u8(offset: number, value: number): this {
    this.view.setUint8(offset, value);
    return this;
  }
  i8(offset: number, value: number): this {
    this.view.setInt8(offset, value);
    return this;
  }
  u16(offset: number, value: number): this {
    this.view.setUint16(offset, value, true);
    return this;
  }
  i16(offset: number, value: number): this {
    this.view.setInt16(offset, value, true);
    return this;
  }
  u32(offset: number, value: number): this {
    this.view.setUint32(offset, value, true);
    return this;
  }
  i32(offset: number, value: number): this {
    this.view.setInt32(offset, value, true);
    return this;
  }
  u64(offset: number, value: bigint): this {
    this.view.setBigUint64(offset, value, true);
    return this;
  }
  i64(offset: number, value: bigint): this {
    this.view.setBigInt64(offset, value, true);
    return this;
  }
  /** A NUL-padded `[c_char; width]`. */
  cstr(offset: number, width: number, text: string): this {
    const encoded = new TextEncoder().encode(text);
    if (encoded.length >= width) throw new Error(`${text} does not fit ${width} bytes with its NUL`);
    this.bytes.set(encoded, offset);
    return this;
  }
  /** One `c_char`. */
  char(offset: number, c: string): this {
    return this.u8(offset, c.charCodeAt(0));
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  return items;
}

export async function* chunksOf(bytes: Uint8Array, ...cuts: number[]): AsyncGenerator<Uint8Array> {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.slice(from, cut);
    from = cut;
  }
}
