/**
 * Values kept in isolate memory, least recently used evicted first once their total size (as
 * JSON characters) passes the budget. A warm request served from here costs neither a KV read
 * nor a parse; keys carry the market versions they were read under, so an entry is never stale.
 */
export class LruMemory {
  readonly #entries = new Map<string, { value: unknown; chars: number }>();
  #chars = 0;

  constructor(readonly budgetChars: number) {}

  get<T>(key: string): T | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Map order is insertion order: re-inserting makes this the most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value as T;
  }

  /** One value may take an eighth of the budget at most, so a few large ones cannot flush the rest. */
  set(key: string, value: unknown, chars: number): void {
    if (chars > this.budgetChars / 8) return;
    this.#forget(key);
    this.#entries.set(key, { value, chars });
    this.#chars += chars;
    for (const oldest of this.#entries.keys()) {
      if (this.#chars <= this.budgetChars) break;
      this.#forget(oldest);
    }
  }

  #forget(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#chars -= entry.chars;
  }
}
