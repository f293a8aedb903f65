/** A structured log line (one JSON object a line on stdout in the CLIs). */
export type IngestLog = (fields: Record<string, unknown>) => void;

/** Occurrences of one kind logged one by one; past this many, one in `LOGGED_EVERY`: a bad file or batch cannot flood the log. */
const LOGGED_ONE_BY_ONE = 100;
const LOGGED_EVERY = 10_000;

/** Whether the `count`-th occurrence (from 1) of something logged per occurrence is logged. */
export const isLogged = (count: number): boolean => count <= LOGGED_ONE_BY_ONE || count % LOGGED_EVERY === 0;
