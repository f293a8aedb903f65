import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env";

/** Failed authentications from one address tolerated within the window before a lockout. */
export const AUTH_FAILURE_LIMIT = 10;
export const AUTH_FAILURE_WINDOW_MS = 60_000;
export const AUTH_LOCKOUT_MS = 300_000;

export interface LockoutState {
  locked: boolean;
  retryAfterSeconds: number;
}

/**
 * Repeated-authentication-failure counter for one client address (`getByName(ip)`). Consulted
 * only when a request fails authentication, so valid traffic never pays for it.
 */
export class AuthGuard extends DurableObject<Bindings> {
  #failures: number[] = [];
  #lockedUntil = 0;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "create table if not exists guard (id integer primary key, failures text not null, locked_until integer not null)",
    );
    const row = ctx.storage.sql
      .exec<{ failures: string; locked_until: number }>("select failures, locked_until from guard where id = 1")
      .toArray()[0];
    if (row) {
      this.#failures = JSON.parse(row.failures) as number[];
      this.#lockedUntil = row.locked_until;
    }
  }

  /** Counts one failure; locks the address once the window holds more than the limit. */
  recordFailure(): LockoutState {
    const now = Date.now();
    if (now < this.#lockedUntil) return this.#state(now);
    this.#failures = [...this.#failures.filter((t) => t > now - AUTH_FAILURE_WINDOW_MS), now];
    if (this.#failures.length > AUTH_FAILURE_LIMIT) {
      this.#lockedUntil = now + AUTH_LOCKOUT_MS;
      this.#failures = [];
    }
    this.ctx.storage.sql.exec(
      "insert into guard (id, failures, locked_until) values (1, ?, ?) on conflict (id) do update set failures = excluded.failures, locked_until = excluded.locked_until",
      JSON.stringify(this.#failures),
      this.#lockedUntil,
    );
    return this.#state(now);
  }

  #state(now: number): LockoutState {
    const locked = now < this.#lockedUntil;
    return { locked, retryAfterSeconds: locked ? Math.ceil((this.#lockedUntil - now) / 1000) : 0 };
  }
}
