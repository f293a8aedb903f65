/**
 * Runs `each` over `items` in order, `concurrency` at a time. The first failure stops what has not
 * started and is thrown once the calls under way have ended: none outlives the call.
 */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let stop: { error: unknown } | undefined;
  const worker = async () => {
    try {
      while (!stop && next < items.length) await each(items[next++]!);
    } catch (error) {
      stop ??= { error };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (stop) throw stop.error;
}
