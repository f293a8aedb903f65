/**
 * The authentication-failure policy (enforced by the `AuthGuard` Durable Object) and its answer,
 * which the Worker remembers in isolate memory (`access/lockout-memory.ts`).
 */

/** Failed authentications from one address tolerated within the window before a lockout. */
export const AUTH_FAILURE_LIMIT = 10;
export const AUTH_FAILURE_WINDOW_MS = 60_000;
export const AUTH_LOCKOUT_MS = 300_000;

export interface LockoutState {
  locked: boolean;
  retryAfterSeconds: number;
}
