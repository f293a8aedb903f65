import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { sendReserved } from "../../devkit/listen";

/**
 * The global setup of the tiers on the shared stack (the workerd tiers and the system tier): it forks the stack's
 * process (test/support/test-stack.ts) and hands it the sockets the test config reserved for its servers. Each
 * project's global setup runs this module in vitest's one main process, so the first starts the stack and the last
 * stops it. The stack's endpoints listen at once and answer once its databases are seeded; each file of these tiers
 * waits for that first (test/support/stack-ready.ts).
 */
const SHARED = Symbol.for("ods.test-stack");
type Shared = { users: number; stack: Promise<ChildProcess> };
const shared = globalThis as unknown as Record<typeof SHARED, Shared | undefined>;

/** How long the stack may take to stop before it is killed. */
const STOP_MS = 30_000;

export async function setup(): Promise<void> {
  const current = (shared[SHARED] ??= { users: 0, stack: startStack() });
  current.users++;
  await current.stack;
}

export async function teardown(): Promise<void> {
  const current = shared[SHARED];
  if (!current || --current.users > 0) return;
  shared[SHARED] = undefined;
  const child = await current.stack;
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.send("stop");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_MS);
  await exited;
  clearTimeout(timer);
}

/** The ports test-stack.ts serves, as vitest.config.ts reserved them. */
function stackPorts(): number[] {
  const env = process.env;
  const ports = [env.TEST_SQL_PORT, env.TEST_DISTANT_SQL_PORT, env.TEST_OUTAGE_SQL_PORT, env.TEST_VENDOR_PORT, env.TEST_STRIPE_PORT]
    .concat((env.TEST_MATRIX_PORTS ?? "").split(","))
    .map(Number);
  if (ports.some((port) => !Number.isInteger(port) || port <= 0)) throw new Error("the test stack's ports are not all reserved");
  return ports;
}

async function startStack(): Promise<ChildProcess> {
  const child = fork(new URL("./test-stack.ts", import.meta.url), { execArgv: ["--import", "tsx"], stdio: "inherit" });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the test stack exited (${code}) before it listened`);
  });
  const said = (word: string) =>
    Promise.race([exited, new Promise<void>((resolve) => child.on("message", (m) => m === word && resolve()))]);
  await said("ready");
  for (const port of stackPorts()) await sendReserved(child, port);
  child.send("start");
  await said("listening");
  exited.catch(() => undefined);
  return child;
}
