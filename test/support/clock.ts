const RealDate = Date;
let offsetMs = 0;

/** `Date` read `offsetMs` ahead of the real clock: it runs at the real clock's pace, never behind it. */
class OffsetDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...(args as ConstructorParameters<DateConstructor>));
  }
  static override now(): number {
    return RealDate.now() + offsetMs;
  }
}

/**
 * Moves this isolate's clock forward without waiting. The Worker, its edge caches and its
 * Durable Objects run in the test isolate and read `Date`, so an isolate copy's 2 s age or the
 * limiter's once-a-second reload bound passes at once. The clock never goes back (the objects
 * remember instants): the files sharing the isolate keep the moved clock. An offset rather than
 * fake timers, whose ticks fall behind the real clock on a busy machine, so alarms set from `Date`
 * would fire early.
 */
export function advanceClock(ms: number): void {
  offsetMs += ms;
  globalThis.Date = OffsetDate as DateConstructor;
}

/**
 * The local rate limiters count in windows aligned to the wall clock's minute (read by the real
 * clock: they run apart from this isolate). A test that needs one whole window starts in a fresh
 * one when less than `needMs` of the current one is left.
 */
export async function freshRateWindow(needMs = 25_000): Promise<void> {
  const left = 60_000 - (RealDate.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}
