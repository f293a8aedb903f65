/**
 * The Chromium the dashboard's browser tests drive (test/dashboard/dashboard.browser.test.ts), and how it
 * is launched. Node-side only: test/support/dashboard.ts runs inside workerd and cannot hold this.
 *
 * Which browser, in this order:
 * 1. `CHROMIUM_PATH`, when set (any Chromium the machine has, e.g. Debian's `/usr/bin/chromium`);
 * 2. on Linux x86_64, the build the `@sparticuz/chromium` dev dependency ships inside its npm tarball
 *    (a brotli-compressed headless shell plus the NSS/expat libraries it links), unpacked on first use
 *    into node_modules/.cache: the version package-lock.json pins, the same on every machine whatever
 *    else is installed there, and `npm install` is all it needs (no download, no root, no apt);
 * 3. elsewhere (the package ships no other platform's build), `/usr/bin/chromium` when it exists.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import type { LaunchOptions } from "playwright-core";

const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/**
 * Switches for a machine whose network reaches only package registries: no background traffic,
 * updates, sync or first-run work. (`--no-sandbox`, needed as root, is playwright-core's default, and
 * it gives every launch a fresh `--user-data-dir` of its own, deleted on close: it refuses one in `args`.)
 */
const ARGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu"];

/** Launch options for playwright-core's `chromium.launch`. */
export function chromiumLaunchOptions(): LaunchOptions {
  const { executablePath, libraryPath } = resolveChromium();
  const env = libraryPath
    ? { ...process.env, LD_LIBRARY_PATH: [libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") }
    : undefined;
  return { executablePath, args: ARGS, headless: true, chromiumSandbox: false, ...(env ? { env } : {}) };
}

function resolveChromium(): { executablePath: string; libraryPath?: string } {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured}: no such file`);
    return { executablePath: configured };
  }
  if (process.platform === "linux" && process.arch === "x64") return unpackedNpmChromium();
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM };
  throw new Error(
    `No Chromium for ${process.platform}/${process.arch}: @sparticuz/chromium ships Linux x86_64 only; set CHROMIUM_PATH to a Chromium or Chrome binary`,
  );
}

/**
 * `@sparticuz/chromium`'s build, unpacked once per version into node_modules/.cache/sparticuz-chromium-VERSION
 * (≈ 1.5 s, 210 MB). Its own `executablePath()` is not used: that unpacks into the shared /tmp as
 * `/tmp/chromium` and reuses whatever file is there, of any version or half written; this unpacks beside
 * and renames into place, so concurrent or interrupted runs never see a partial browser.
 */
function unpackedNpmChromium(): { executablePath: string; libraryPath: string } {
  const require = createRequire(import.meta.url);
  const packageDir = join(dirname(require.resolve("@sparticuz/chromium")), "..");
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  const cache = join(packageDir, "..", "..", ".cache");
  const name = `sparticuz-chromium-${version}`;
  const dir = join(cache, name);
  const result = { executablePath: join(dir, "chromium"), libraryPath: join(dir, "lib") };
  if (existsSync(result.executablePath)) return result;

  mkdirSync(cache, { recursive: true });
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  const bin = join(packageDir, "bin");
  writeFileSync(join(partial, "chromium"), brotliDecompressSync(readFileSync(join(bin, "chromium.br"))), { mode: 0o755 });
  // lib/: libnss3, libnspr4, libexpat and friends built for the same binary (Amazon Linux 2023's, the
  // package's target), so the browser needs nothing from the machine but glibc.
  const tar = spawnSync("tar", ["-x", "-C", partial], { input: brotliDecompressSync(readFileSync(join(bin, "al2023.tar.br"))) });
  if (tar.status !== 0) throw new Error(`unpacking ${bin}/al2023.tar.br: ${tar.error?.message ?? tar.stderr.toString()}`);
  try {
    renameSync(partial, dir);
  } catch (error) {
    // Another run unpacked the same version first.
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(result.executablePath)) throw error;
  }
  // Other versions' unpacked builds (left by an upgrade) and partial ones of runs that died.
  for (const entry of readdirSync(cache)) {
    const pid = entry.startsWith(`${name}.partial-`) ? Number(entry.slice(`${name}.partial-`.length)) : undefined;
    if (entry.startsWith("sparticuz-chromium-") && entry !== name && (pid === undefined || !running(pid))) {
      rmSync(join(cache, entry), { recursive: true, force: true });
    }
  }
  return result;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
