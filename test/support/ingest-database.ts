import { randomBytes } from "node:crypto";
import pg from "pg";
import { openBackend, type SqlBackend } from "../../ingest/db/sql-backend";
import { testDatabaseUrl } from "./test-database";

/**
 * A market database of a test file's own, migrated, that it may truncate at will: on the
 * PostgreSQL server TEST_DATABASE_URL names, a database created for it (dropped by `close`); else an
 * embedded PGlite in memory. The ingestion writers are then tested on both engines.
 */
export async function ingestDatabase(): Promise<SqlBackend> {
  const server = testDatabaseUrl();
  if (!server) {
    const db = await openBackend({ dataDir: "memory://" });
    await db.migrate("drizzle");
    return db;
  }
  const name = `ingest_test_${randomBytes(6).toString("hex")}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = await openBackend({ databaseUrl: url.toString(), dataDir: "memory://" });
  await db.migrate("drizzle");
  const close = db.close.bind(db);
  db.close = async () => {
    await close();
    await admin(`drop database if exists ${name}`);
  };
  return db;
}
