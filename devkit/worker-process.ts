import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolve } from "node:path";

export interface WorkerProcess {
  child: ChildProcess;
  url: string;
  stop(): void;
}

/**
 * Where `wrangler dev --persist-to <persistTo>` keeps the storage of the Worker's `AuthGuard`
 * objects, its authentication failures and lockouts per client: miniflare's
 * `v3/do/<worker name>-<class name>`.
 */
export function lockoutState(persistTo: string): string {
  const name = /^name\s*=\s*"([^"]+)"/m.exec(readFileSync(resolve("wrangler.toml"), "utf8"))?.[1];
  if (!name) throw new Error("wrangler.toml names no Worker");
  return join(persistTo, "v3", "do", `${name}-AuthGuard`);
}

/**
 * Runs the Worker under `wrangler dev` against the local Neon endpoint on `sqlPort`, and resolves once
 * wrangler has bound its port (with its URL; `waitUntilUp` then waits for the Worker to answer). Durable
 * Object and KV state go to `persistTo` (default: a fresh temporary folder), so they never
 * outlive the database they describe.
 */
export async function startWorker(options: {
  /** 0 (the default): a port the system picks, read back from wrangler's "Ready on" line; nothing can take it in between. */
  port?: number;
  sqlPort: number;
  /** The local SQL endpoint's per-run password (it refuses connection strings without it). */
  sqlPassword: string;
  vars?: Record<string, string>;
  quiet?: boolean;
  persistTo?: string;
  /**
   * Start with no authentication failure or lockout remembered in `persistTo` (every client of a
   * Worker listening on 127.0.0.1 is this machine): `npm run dev`'s own admin calls, made with the
   * token it generated, are then never refused for tokens mistyped into an earlier run.
   */
  forgetLockouts?: boolean;
}): Promise<WorkerProcess> {
  if (options.forgetLockouts && options.persistTo) rmSync(lockoutState(options.persistTo), { recursive: true, force: true });
  const dbUrl = (name: string) => `postgresql://app:${encodeURIComponent(options.sqlPassword)}@127.0.0.1:${options.sqlPort}/${name}`;
  const vars: Record<string, string> = {
    MARKET_DATABASE_URL: dbUrl("market"),
    CONTROL_DATABASE_URL: dbUrl("control"),
    NEON_HTTP_ENDPOINT: "http://{host}:{port}/sql",
    // Cursors need only outlive this process.
    CURSOR_SECRET: randomBytes(32).toString("hex"),
    // Dashboard sessions too: a restart signs the browser out (the local provider takes any password).
    SESSION_SECRET: randomBytes(32).toString("hex"),
    ...options.vars,
  };
  // Secrets reach wrangler through a private file, never the command line (readable in `ps`).
  const varsDir = mkdtempSync(join(tmpdir(), "ods-vars-"));
  const varsFile = join(varsDir, ".dev.vars");
  writeFileSync(
    varsFile,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join("\n") + "\n",
    { mode: 0o600 },
  );
  const child = spawn(
    process.execPath,
    [
      resolve("node_modules/wrangler/bin/wrangler.js"),
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(options.port ?? 0),
      "--show-interactive-dev-session=false",
      "--persist-to",
      options.persistTo ?? mkdtempSync(join(tmpdir(), "ods-wrangler-")),
      "--env-file",
      varsFile,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      // No telemetry, and no fetch of the `Request.cf` object from Cloudflare (unreachable offline, noisy when it fails).
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  child.on("exit", () => rmSync(varsDir, { recursive: true, force: true }));
  const stop = () => {
    if (child.exitCode === null) child.kill("SIGTERM");
  };
  try {
    return { child, url: await readyUrl(child, options.quiet ?? false), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** How long wrangler may take to bind its port (a cold start bundles the Worker first). */
const READY_TIMEOUT_MS = 120_000;

/** The URL of wrangler's "Ready on …" line; its output passed on unless `quiet`, its last lines in the error if it ends first. */
function readyUrl(child: ChildProcess, quiet: boolean): Promise<string> {
  let tail = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`wrangler dev was not ready within ${READY_TIMEOUT_MS} ms:\n${tail}`)),
      READY_TIMEOUT_MS,
    );
    timer.unref();
    const read = (into: NodeJS.WriteStream) => (chunk: Buffer) => {
      if (!quiet) into.write(chunk);
      tail = (tail + chunk.toString()).slice(-4_000);
      const ready = /Ready on (http:\/\/[\w.:[\]]+)/.exec(tail.replace(/\x1b\[[0-9;]*m/g, ""));
      if (ready) {
        clearTimeout(timer);
        resolve(ready[1] as string);
      }
    };
    child.stdout?.on("data", read(process.stdout));
    child.stderr?.on("data", read(process.stderr));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`wrangler dev ended (exit ${code}) before it was ready:\n${tail}`));
    });
  });
}

/** Resolves once `url` answers, or rejects after `timeoutMs`. */
export async function waitUntilUp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up within ${timeoutMs} ms`);
}
