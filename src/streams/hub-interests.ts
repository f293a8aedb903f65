/** A shard's interests as stored: hub → subscription key → interest. */
export type StoredInterests<T> = Record<string, Record<string, T>>;

/**
 * What a shard holds for the hubs it serves: per hub, per subscription key, what that subscription
 * wants here. Every shard class keeps one, persists it whole, and forgets what a hub says it no
 * longer holds (its answer to a delivery), so no read is made for a subscriber that is gone.
 */
export class HubInterests<T> {
  #byHub = new Map<string, Map<string, T>>();

  constructor(stored: StoredInterests<T> = {}) {
    for (const [hub, keys] of Object.entries(stored)) this.#byHub.set(hub, new Map(Object.entries(keys)));
  }

  add(hub: string, key: string, interest: T): void {
    const keys = this.#byHub.get(hub) ?? new Map<string, T>();
    keys.set(key, interest);
    this.#byHub.set(hub, keys);
  }

  /** Removes one subscription; whether anything changed. A hub left with none is forgotten. */
  remove(hub: string, key: string): boolean {
    const keys = this.#byHub.get(hub);
    if (!keys?.delete(key)) return false;
    if (keys.size === 0) this.#byHub.delete(hub);
    return true;
  }

  /**
   * Forgets the subscriptions a delivery was addressed to (`addressed`: the keys when it was sent)
   * that the hub says it no longer holds; one registered since stays. Whether the hub is gone from
   * this shard.
   */
  keepOnly(hub: string, addressed: readonly string[], held: readonly string[]): boolean {
    const keys = this.#byHub.get(hub);
    if (!keys) return true;
    for (const key of addressed) if (!held.includes(key)) keys.delete(key);
    if (keys.size > 0) return false;
    this.#byHub.delete(hub);
    return true;
  }

  has(hub: string): boolean {
    return this.#byHub.has(hub);
  }

  /** Hubs with at least one subscription here. */
  get size(): number {
    return this.#byHub.size;
  }

  /** Each hub, its subscriptions' interests and their keys. */
  byHub(): [hub: string, interests: T[], keys: string[]][] {
    return [...this.#byHub].map(([hub, keys]) => [hub, [...keys.values()], [...keys.keys()]]);
  }

  /** Every subscription's interest, whatever its hub. */
  all(): T[] {
    return [...this.#byHub.values()].flatMap((keys) => [...keys.values()]);
  }

  toJSON(): StoredInterests<T> {
    return Object.fromEntries([...this.#byHub].map(([hub, keys]) => [hub, Object.fromEntries(keys)]));
  }
}
