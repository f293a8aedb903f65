import { spawn, spawnSync, type ChildProcess } from "node:child_process";

/** A start takes about 5 s here; this bounds a start that hangs, so its output is shown. */
const START_TIMEOUT_MS = 90_000;

/** One `npm run dev` started by a test, in its own process group (wrangler and workerd under it). */
export interface DevRun {
  child: ChildProcess;
  /** The API's origin, e.g. http://127.0.0.1:PORT. */
  base: string;
  output: () => string;
  exited: Promise<number | null>;
  /** Whether it printed its demo key (false: it exited or hung first; `output()` tells why). */
  up: boolean;
}

/**
 * Starts `npm run dev` as the README runs it, its state in `devDir` (`DEV_DIR`), always on PGlite
 * (an empty DATABASE_URL counts as unset), on ports the system picks unless `env` names them (its
 * servers bind port 0 and it prints the URLs they got); resolves once it printed its demo key, or once
 * it exited or hung.
 */
export async function startDev(devDir: string, env: Record<string, string> = {}, args: string[] = []): Promise<DevRun> {
  const childEnv = { ...process.env, DEV_DIR: devDir, PORT: "0", DATABASE_URL: "", ...env };
  const child = spawn("npm", ["run", "dev", "--silent", ...(args.length > 0 ? ["--", ...args] : [])], {
    env: childEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (text += d.toString()));
  // "close", not "exit": a process's last output can still be in its pipes when "exit" fires (seen on a loaded machine:
  // a failed start read back as no output at all).
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const up = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), START_TIMEOUT_MS).unref()),
    new Promise<boolean>((resolve) => {
      const poll = setInterval(() => {
        if (/demo key\s+ods_live_/.test(text)) {
          clearInterval(poll);
          resolve(true);
        }
      }, 100);
      void exited.then(() => clearInterval(poll));
    }),
  ]);
  return { child, base: /^\s*API\s+(http:\/\/\S+)$/m.exec(text)?.[1] ?? "", output: () => text, exited, up };
}

/** Ctrl-C, as a developer stops it: SIGINT to the whole process group; resolves once `npm run dev` has ended. */
export async function stopDev(run: DevRun): Promise<void> {
  if (run.child.pid && run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid, "SIGINT");
  await run.exited;
}

/** For cleanup after a failed test: the whole process group, at once. */
export function killDev(run: Pick<DevRun, "child">): void {
  if (run.child.exitCode !== null || run.child.signalCode !== null || !run.child.pid) return;
  try {
    process.kill(-run.child.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Processes whose command line names `devDir` (wrangler and workerd run with paths in it), after a grace period to exit. */
export async function leftovers(devDir: string): Promise<string[]> {
  let found: string[] = [];
  for (let attempt = 0; attempt < 50; attempt++) {
    const ps = spawnSync("pgrep", ["-af", devDir], { encoding: "utf8" });
    found = ps.stdout.split("\n").filter((line) => line.trim() !== "" && !line.includes("pgrep"));
    if (found.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return found;
}
