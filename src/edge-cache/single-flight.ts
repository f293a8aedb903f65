/** A computation under way in this isolate: plain data, set once it settles, that any request may read. */
interface Flight<T> {
  outcome?: { ok: true; value: T } | { ok: false; error: unknown };
}

/** Computations under way in this isolate, by key. */
const flights = new Map<string, Flight<unknown>>();

/** How often a request waiting on another's computation looks at it, and how long before it computes for itself. */
const FOLLOWER_POLL_MS = 5;
const FOLLOWER_MAX_WAIT_MS = 10_000;

/**
 * `compute` once per isolate however many requests ask for `key` together: the first leads, the
 * others take its outcome (its error too). The leader's computation — and `keep`, which stores
 * its value while later requests still take it from the flight — is registered with its
 * `waitUntil`, so it completes even when that client goes away. The others never await the
 * leader's promise: workerd cancels the continuation of a promise whose creating request has
 * ended, and counts a request that waits on nothing of its own as hung (a 500 under concurrent
 * misses). They poll the flight's plain outcome on their own timer instead, and compute for
 * themselves if it never comes. Values are shared between requests: callers must not modify them.
 */
export async function singleFlight<T>(
  key: string,
  compute: () => Promise<T>,
  options: { waitUntil: (work: Promise<unknown>) => void; keep: (value: T) => Promise<unknown> },
): Promise<T> {
  const other = flights.get(key) as Flight<T> | undefined;
  const settled = other && (await outcomeOf(other));
  if (settled) return settled.value;
  const flight: Flight<T> = {};
  flights.set(key, flight);
  const computed = compute();
  const kept = computed
    .then(
      (value) => {
        flight.outcome = { ok: true, value };
        return options.keep(value);
      },
      (error: unknown) => void (flight.outcome = { ok: false, error }),
    )
    // A failed keep only costs a recomputation.
    .catch(() => undefined)
    .finally(() => {
      if (flights.get(key) === flight) flights.delete(key);
    });
  options.waitUntil(kept);
  return computed;
}

/** Another request's outcome, awaited on this request's own timer; undefined if it takes too long. */
async function outcomeOf<T>(flight: Flight<T>): Promise<{ value: T } | undefined> {
  for (let waited = 0; !flight.outcome && waited < FOLLOWER_MAX_WAIT_MS; waited += FOLLOWER_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, FOLLOWER_POLL_MS));
  }
  if (!flight.outcome) return undefined;
  if (!flight.outcome.ok) throw flight.outcome.error;
  return { value: flight.outcome.value };
}
