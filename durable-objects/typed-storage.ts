/**
 * A Durable Object's key-value storage with the shape of what it keeps: one declared record per
 * class instead of a cast at every read. Tests read the same keys with `runInDurableObject`.
 */
export class TypedStorage<S extends Record<string, unknown>> {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** The stored values of `keys`; a key never written is absent. */
  async read<K extends keyof S & string>(keys: K[]): Promise<Partial<Pick<S, K>>> {
    const stored = await this.storage.get<unknown>(keys);
    return Object.fromEntries(stored) as Partial<Pick<S, K>>;
  }

  /** Writes some of the values; `allowUnconfirmed` lets a reply go before the write reaches disk. */
  write(values: Partial<S>, options?: DurableObjectPutOptions): Promise<void> {
    return this.storage.put(values as Record<string, unknown>, options);
  }

  deleteAll(): Promise<void> {
    return this.storage.deleteAll();
  }
}
