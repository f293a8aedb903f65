/**
 * Runs `pass` at once and then every `everyMs` after the last one ended, until `signal` is aborted
 * (a pass under way finishes first). A pass that throws is reported to `failed` and the next runs.
 */
export async function repeatUntilAborted(
  signal: AbortSignal,
  everyMs: number,
  pass: () => Promise<void>,
  failed: (error: unknown) => void,
): Promise<void> {
  while (!signal.aborted) {
    await pass().catch(failed);
    if (signal.aborted) break;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, everyMs);
      signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  }
}
