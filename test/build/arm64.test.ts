/**
 * The arm64 executable, cross-built on this machine (docs/install.md): the runtime is
 * the `bun` binary of @oven/bun-linux-aarch64 from the npm registry (npm pack), given
 * to `bun build --compile --compile-executable-path`. Checked by its ELF header, run
 * under qemu-user when Debian's qemu-user-static and libc6-arm64-cross are installed,
 * and installed with install.sh --root (which must not try to run it here).
 *
 * The build runs once, before the tests are declared, so each test can be skipped with
 * its reason in its name: on a host that is not x64, and, outside CI, when the build
 * cannot finish within a minute here (a cold npm cache on a slow link) or the registry
 * cannot be reached (run it by hand with `scripts/build --target linux-arm64`). Under
 * CI=true those two fail instead.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };

const repoRoot = join(import.meta.dir, "..", "..");
const budgetMs = 60_000;
const cleanEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const inCi = process.env.CI === "true";

const work = mkdtempSync(join(tmpdir(), "fieldhub-arm64-test-"));
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

type CrossBuild =
  | { kind: "built"; exe: string }
  | { kind: "unavailable"; reason: string }
  | { kind: "failed"; output: string };

async function crossBuild(): Promise<CrossBuild> {
  const out = join(work, "dist");
  const started = performance.now();
  const proc = Bun.spawn(["bash", join(repoRoot, "scripts/build"), "--target", "linux-arm64", "--out", out], {
    cwd: repoRoot,
    env: { ...cleanEnv, FIELDHUB_COMMIT: "arm64test" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const outcome = await Promise.race([proc.exited, Bun.sleep(budgetMs).then(() => "timeout" as const)]);
  if (outcome === "timeout") {
    proc.kill("SIGKILL");
    return {
      kind: "unavailable",
      reason: `the arm64 build took over ${budgetMs / 1000} s here (fetching the runtime from the npm registry)`,
    };
  }
  const stdout = await new Response(proc.stdout).text();
  const stderr = await new Response(proc.stderr).text();
  // scripts/build exits 3 when the foreign runtime cannot be fetched from the registry.
  if (outcome === 3) return { kind: "unavailable", reason: `the arm64 runtime could not be fetched: ${stderr.trim()}` };
  if (outcome !== 0) return { kind: "failed", output: `exit ${outcome}:\n${stdout}\n${stderr}` };
  console.log(`scripts/build --target linux-arm64: ${Math.round(performance.now() - started)} ms\n${stdout}`);
  return { kind: "built", exe: join(out, "fieldhub-linux-arm64") };
}

const build: CrossBuild =
  process.arch === "x64" ? await crossBuild() : { kind: "unavailable", reason: `the host is ${process.arch}, not x64` };
/** Why the tests that need the executable are skipped here, or "" when they run. */
const skipReason =
  process.arch !== "x64"
    ? ` (skipped: the cross-build runs on x64 hosts; this is ${process.arch})`
    : build.kind === "unavailable" && !inCi
      ? ` (skipped: ${build.reason}; run scripts/build --target linux-arm64 by hand)`
      : "";
const qemu = Bun.which("qemu-aarch64-static");
const qemuReady = qemu !== null && existsSync("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1");

/** The built executable; fails the calling test when there is none. */
function builtExe(): string {
  if (build.kind === "built") return build.exe;
  if (build.kind === "failed") throw new Error(`scripts/build --target linux-arm64 failed (${build.output})`);
  throw new Error(`${build.reason} (under CI=true the arm64 build must run)`);
}

function elfHeader(path: string) {
  const header = Buffer.alloc(20);
  const fd = openSync(path, "r");
  readSync(fd, header, 0, 20, 0);
  return {
    magic: header.subarray(0, 4).toString("latin1"),
    class64: header[4] === 2,
    littleEndian: header[5] === 1,
    machine: header.readUInt16LE(18),
  };
}

test.skipIf(skipReason !== "")(`scripts/build --target linux-arm64 makes an aarch64 executable${skipReason}`, () => {
  const header = elfHeader(builtExe());
  expect(header.magic).toBe("\x7fELF");
  expect(header.class64).toBe(true);
  expect(header.littleEndian).toBe(true);
  expect(header.machine).toBe(183); // EM_AARCH64
});

test.skipIf(skipReason !== "" || !qemuReady)(
  `the arm64 executable runs under qemu-user${
    skipReason || (qemuReady ? "" : " (skipped: install qemu-user-static and libc6-arm64-cross to run it here)")
  }`,
  () => {
    const ran = Bun.spawnSync([qemu!, "-L", "/usr/aarch64-linux-gnu", builtExe(), "version"], {
      cwd: work,
      timeout: 60_000,
    });
    expect(ran.stdout.toString()).toBe(`fieldhub ${packageJson.version} (arm64test)\n`);
  },
  60_000 + 10_000,
);

test.skipIf(skipReason !== "")(
  `install.sh puts a foreign executable in place under --root without running it${skipReason}`,
  () => {
    const exe = builtExe();
    const root = join(work, "root");
    const installed = Bun.spawnSync(["bash", join(repoRoot, "install.sh"), "--root", root, exe], {
      cwd: work,
      env: cleanEnv,
    });
    expect(installed.exitCode).toBe(0);
    expect(installed.stderr.toString()).toContain("is aarch64, this machine is x86-64");
    expect(readFileSync(join(root, "usr/local/bin/fieldhub")).equals(readFileSync(exe))).toBe(true);
    expect(existsSync(join(root, "etc/systemd/system/fieldhub.service"))).toBe(true);
  },
);
