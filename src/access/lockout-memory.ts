import type { LockoutState } from "../limits/lockout";

/**
 * The lockouts this isolate has seen, so a locked address is refused without a call to its
 * `AuthGuard`. Bounded: under a wide attack the guard objects still hold every lockout.
 */
const locked = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

/** Seconds the address stays locked according to this isolate's memory, or 0. */
export function rememberedLockout(ip: string, now = Date.now()): number {
  const until = locked.get(ip);
  if (until === undefined) return 0;
  if (until > now) return Math.ceil((until - now) / 1000);
  locked.delete(ip);
  return 0;
}

export function rememberLockout(ip: string, state: LockoutState, now = Date.now()): void {
  if (!state.locked) return;
  if (locked.size >= MAX_REMEMBERED) locked.delete(locked.keys().next().value as string);
  locked.set(ip, now + state.retryAfterSeconds * 1000);
}
