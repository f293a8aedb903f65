/**
 * In-flight slots as leases with an expiry, the clock passed in: a request that never releases
 * (a crashed or cancelled one) holds its slot until the lease expires, never for ever.
 */
export class Leases {
  readonly #expiries: Map<string, number>;

  constructor(entries: Iterable<[string, number]> = []) {
    this.#expiries = new Map(entries);
  }

  get size(): number {
    return this.#expiries.size;
  }

  /** A new lease until `now + durationMs`. */
  acquire(now: number, durationMs: number): string {
    const id = crypto.randomUUID();
    this.#expiries.set(id, now + durationMs);
    return id;
  }

  /** True when the lease was held (releasing twice, or after expiry, is harmless). */
  release(id: string): boolean {
    return this.#expiries.delete(id);
  }

  /** Drops the leases expired at `now`; true when any was. */
  sweep(now: number): boolean {
    let changed = false;
    for (const [id, expiresAt] of this.#expiries) {
      if (expiresAt <= now) changed = this.#expiries.delete(id) || changed;
    }
    return changed;
  }

  /** The earliest expiry, or null when nothing is held. */
  nextExpiry(): number | null {
    let next: number | null = null;
    for (const expiresAt of this.#expiries.values()) next = next === null ? expiresAt : Math.min(next, expiresAt);
    return next;
  }

  entries(): [string, number][] {
    return [...this.#expiries];
  }
}
