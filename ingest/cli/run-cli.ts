/** A failure's message alone: never a stack trace. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Runs a command's `main`: a code it returns is the process's exit code (nothing returned: the
 * process ends when its work does); a failure prints its message (or what `report` makes of it,
 * on stderr) and exits 1.
 */
export function runCli(main: () => Promise<number | void>, report: (error: unknown) => string = messageOf): void {
  main().then(
    (code) => {
      if (typeof code === "number") process.exit(code);
    },
    (error: unknown) => {
      console.error(report(error));
      process.exit(1);
    },
  );
}
