import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "../src/env";
import { TypedStorage } from "./typed-storage";
import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS, AUTH_LOCKOUT_MS, type LockoutState } from "../src/limits/lockout";

interface GuardStorage extends Record<string, unknown> {
  /** Failure times within the window, epoch ms. */
  failures: number[];
  lockedUntil: number;
}

/**
 * Repeated-authentication-failure counter for one client (`getByName(clientKey)`: an IPv4
 * address or an IPv6 /64). Consulted only when a request fails authentication, so valid traffic
 * never pays for it (except the admin API, which asks before every token comparison); an alarm deletes its storage once there is nothing left to remember.
 */
export class AuthGuard extends DurableObject<Bindings> {
  #failures: number[] = [];
  #lockedUntil = 0;

  readonly #stored: TypedStorage<GuardStorage>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.#stored = new TypedStorage(ctx.storage);
    void ctx.blockConcurrencyWhile(() => this.#load());
  }

  async #load(): Promise<void> {
    const stored = await this.#stored.read(["failures", "lockedUntil"]);
    this.#failures = stored.failures ?? [];
    this.#lockedUntil = stored.lockedUntil ?? 0;
  }

  /** Counts one failure; locks the address once the window holds more than the limit. */
  async recordFailure(): Promise<LockoutState> {
    const now = Date.now();
    if (now < this.#lockedUntil) return this.#state(now);
    this.#failures = [...this.#failures.filter((t) => t > now - AUTH_FAILURE_WINDOW_MS), now];
    if (this.#failures.length > AUTH_FAILURE_LIMIT) {
      this.#lockedUntil = now + AUTH_LOCKOUT_MS;
      this.#failures = [];
    }
    await this.#stored.write({ failures: this.#failures, lockedUntil: this.#lockedUntil });
    await this.ctx.storage.setAlarm(this.#forgetAt());
    return this.#state(now);
  }

  /** Whether the address is locked out, without counting anything (the admin gate asks before comparing a token). */
  async lockout(): Promise<LockoutState> {
    return this.#state(Date.now());
  }

  /** Once the window and the lockout have passed there is nothing to remember: the object leaves no storage behind. */
  override async alarm(): Promise<void> {
    // Storage is written on every failure, so it is as current as memory.
    await this.#load();
    const forgetAt = this.#forgetAt();
    if (Date.now() < forgetAt) {
      await this.ctx.storage.setAlarm(forgetAt);
      return;
    }
    this.#failures = [];
    this.#lockedUntil = 0;
    await this.#stored.deleteAll();
  }

  /** When the newest failure has left the window and any lockout has ended. */
  #forgetAt(): number {
    return Math.max(this.#lockedUntil, (this.#failures.at(-1) ?? 0) + AUTH_FAILURE_WINDOW_MS);
  }

  #state(now: number): LockoutState {
    const locked = now < this.#lockedUntil;
    return { locked, retryAfterSeconds: locked ? Math.ceil((this.#lockedUntil - now) / 1000) : 0 };
  }
}
