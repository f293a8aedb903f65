import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: the CLIs run from there (`npm run ingest`) or from ingest/ (its own `npm start`) alike. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The local state of `npm run dev` and the tools around it (git-ignored); `DEV_DIR` moves it. */
export const DEV_DIR = process.env.DEV_DIR ? resolve(process.env.DEV_DIR) : join(ROOT, ".dev");
/** Where the embedded PGlite database of `npm run dev` lives. */
export const DEV_DATA_DIR = resolve(process.env.PGLITE_DIR || join(DEV_DIR, "pglite"));
export const MIGRATIONS_DIR = join(ROOT, "drizzle");

/** The PostgreSQL server to use instead of PGlite, when set. */
export function databaseUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}

/** `--name value` and `--flag` arguments. */
export function parseArgs(argv: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith("--")) continue;
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith("--")) {
      out.set(arg.slice(2), next);
      i++;
    } else out.set(arg.slice(2), "true");
  }
  return out;
}
