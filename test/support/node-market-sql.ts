import { neon } from "@neondatabase/serverless";
import { useNeonEndpoint } from "../../src/db/client";
import { testSqlPassword } from "./sql-password";

/** Raw SQL on the seeded market database from Node (the system tier), through the same local endpoint the Worker reads. */
export function nodeMarketSql() {
  useNeonEndpoint("http://{host}:{port}/sql");
  return neon(`postgresql://app:${testSqlPassword()}@127.0.0.1:${process.env.TEST_SQL_PORT}/market`);
}
