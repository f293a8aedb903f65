import { vi } from "vitest";

/**
 * Moves this isolate's clock forward without waiting. The Worker, its edge caches and its
 * Durable Objects run in the test isolate and read `Date`, so an isolate copy's 2 s age or the
 * limiter's once-a-second reload bound passes at once. Time keeps running from the new instant
 * and never goes back (the objects remember instants), so a file that moves it keeps the moved clock.
 */
export function advanceClock(ms: number): void {
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, now: Date.now() + ms });
}
