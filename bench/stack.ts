import { randomBytes } from "node:crypto";
import { generateAdminToken } from "../src/domain/admin-token";
import { AdminClient } from "../ingest/admin-api/admin-client";
import type { AdminResult } from "../ingest/admin-api/admin-api";
import { startWorker, waitUntilUp, type WorkerProcess } from "../devkit/worker-process";
import { startNeonHttpServer, type NeonHttpServer } from "../devkit/neon-endpoint/neon-http-server";
import type { SqlBackend } from "../ingest/db/sql-backend";
import type { Stack } from "./measure";

/** Accounts the requests rotate over, so the per-account limit is not what is measured. */
const BENCH_ACCOUNTS = 82;

/** A stack a benchmark started: its Worker and SQL endpoint, to stop at the end. */
export interface Started extends Stack {
  sql: NeonHttpServer;
  worker: WorkerProcess;
}

/** The Workers of one run and their shared secrets (the SQL endpoints' password, the admin token). */
export class BenchStacks {
  readonly stacks: Started[] = [];
  private readonly sqlPassword = randomBytes(24).toString("hex");
  private readonly adminToken = generateAdminToken();

  constructor(private readonly backend: SqlBackend) {}

  /** A Worker under `wrangler dev` with its own local SQL endpoint `rtt` ms away, over the same database; waits until it answers. */
  async start(rtt: number): Promise<Started> {
    const sql = await startNeonHttpServer(this.backend, { password: this.sqlPassword, latencyMs: rtt });
    const worker = await startWorker({
      sqlPort: sql.port,
      sqlPassword: this.sqlPassword,
      vars: { BENCH_FLOOR: "true", ADMIN_TOKEN: this.adminToken },
      quiet: process.env.BENCH_WORKER_LOGS !== "true",
    });
    const stack: Started = { rtt, url: worker.url, sql, worker, trips: () => [sql.trips.of("market"), sql.trips.of("control")] };
    this.stacks.push(stack);
    await waitUntilUp(`${stack.url}/health`, 120_000);
    return stack;
  }

  /**
   * Keys of `count` new active basic accounts, made through the first stack (the stacks share the
   * control database); past the admin API's per-minute limit it waits and goes on.
   */
  async accountKeys(count = BENCH_ACCOUNTS): Promise<string[]> {
    const admin = new AdminClient(this.stacks[0]!.url, this.adminToken);
    const run = `bench-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
    const paced = async <T>(call: () => Promise<AdminResult<T>>): Promise<AdminResult<T>> => {
      for (;;) {
        const result = await call();
        if (result.status !== 429) return result;
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }
    };
    const keys: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await paced(() => admin.createAccount({ name: `${run}-${i}`, status: "active", plan: "basic" }));
      const key = created.ok ? await paced(() => admin.createKey(`${run}-${i}`)) : undefined;
      if (!key?.ok) throw new Error("could not create benchmark accounts");
      keys.push(key.body.key);
    }
    return keys;
  }

  /** The admin API's token (the ingestor's stream wake-ups take it from its environment). */
  get adminTokenValue(): string {
    return this.adminToken;
  }

  get sqlEndpointPassword(): string {
    return this.sqlPassword;
  }

  async stop(): Promise<void> {
    for (const s of this.stacks) {
      s.worker.stop();
      await s.sql.close();
    }
  }
}
