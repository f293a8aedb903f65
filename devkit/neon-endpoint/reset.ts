import type { SqlBackend } from "../../ingest/db/sql-backend";

/** Drops every table of ours and the migration journal; for test databases only. */
export async function resetDatabase(backend: SqlBackend): Promise<void> {
  await backend.exec("drop schema if exists public cascade; create schema public; drop schema if exists drizzle cascade;");
}
