/**
 * The PostgreSQL server the suite runs on: `TEST_DATABASE_URL`, never `DATABASE_URL` — that one
 * names the database `npm run ingest`, `seed` and `roll` write, and the suite drops the `public`
 * schema of the database it is given. Undefined: every database is an embedded PGlite.
 */
export function testDatabaseUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

/** A database name that says it is a test one: `test`, or `test` as a word of it (`ods_test`, `test-ci`). */
const TEST_NAME = /(^|[_-])test([_-]|$)/i;

/**
 * Why the suite must not start with this environment, or null when it may: `DATABASE_URL` set (the
 * suite never uses it, and the tools its tests start would inherit it), or a `TEST_DATABASE_URL`
 * that is not a PostgreSQL URL of a database named as a test one.
 */
export function testDatabaseRefusal(env: NodeJS.ProcessEnv): string | null {
  if (env.DATABASE_URL) {
    return (
      "npm test does not run with DATABASE_URL set: it names the database npm run ingest, seed and roll write, and the suite " +
      "drops the public schema of the database it runs on. Unset DATABASE_URL; to run the suite on PostgreSQL, name a test " +
      "database in TEST_DATABASE_URL (e.g. TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test)."
    );
  }
  if (!env.TEST_DATABASE_URL) return null;
  let url: URL;
  try {
    url = new URL(env.TEST_DATABASE_URL);
  } catch {
    return "TEST_DATABASE_URL is not a URL (postgresql://user@host:port/test).";
  }
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") return "TEST_DATABASE_URL must be a postgresql:// URL.";
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!TEST_NAME.test(name)) {
    return `TEST_DATABASE_URL names the database '${name}', whose name does not say it is a test one (test, ods_test, test_ci…): the suite drops its public schema.`;
  }
  return null;
}
