import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { testDatabaseRefusal } from "../support/test-database";

describe("the suite's database", () => {
  it("refuses DATABASE_URL, the database the tools write, naming TEST_DATABASE_URL", () => {
    expect(testDatabaseRefusal({ DATABASE_URL: "postgresql://app@db.example.com:5432/market" })).toMatch(/TEST_DATABASE_URL/);
  });

  it("takes a TEST_DATABASE_URL whose database is named as a test one, and refuses any other", () => {
    for (const name of ["test", "ods_test", "test_ci", "ci-test-2"]) {
      expect(testDatabaseRefusal({ TEST_DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${name}` })).toBeNull();
    }
    for (const name of ["market", "production", "latest", "contest", ""]) {
      expect(testDatabaseRefusal({ TEST_DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/${name}` })).toMatch(/test one/);
    }
    expect(testDatabaseRefusal({ TEST_DATABASE_URL: "mysql://root@127.0.0.1/test" })).toMatch(/postgresql/);
    expect(testDatabaseRefusal({ TEST_DATABASE_URL: "not a url" })).toMatch(/not a URL/);
    expect(testDatabaseRefusal({})).toBeNull();
  });

  it("`npm test` with DATABASE_URL set stops before it sets anything up", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: "postgresql://app@127.0.0.1:1/market" };
    delete env.TEST_DATABASE_URL;
    const run = spawnSync("npx", ["vitest", "run", "test/domain/occ.unit.test.ts"], { env, encoding: "utf8", timeout: 60_000 });
    expect(run.status).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/does not run with DATABASE_URL set.*TEST_DATABASE_URL/s);
  }, 90_000);
});
