/**
 * The arm64 executable, cross-built on this machine (docs/install.md): the runtime is
 * the `bun` binary of @oven/bun-linux-aarch64 from the npm registry (npm pack), given
 * to `bun build --compile --compile-executable-path`. Checked by its ELF header, run
 * under qemu-user when Debian's qemu-user-static and libc6-arm64-cross are installed,
 * and installed with install.sh --root (which must not try to run it here).
 *
 * When the build cannot finish within a minute here (a cold npm cache on a slow link)
 * or the registry cannot be reached, the test says so and skips; run it by hand with
 * `scripts/build --target linux-arm64`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../../package.json" with { type: "json" };

const repoRoot = join(import.meta.dir, "..", "..");
const budgetMs = 60_000;
const cleanEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "fieldhub-arm64-test-"));
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

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

test(
  "scripts/build --target linux-arm64 makes an aarch64 executable",
  async () => {
    if (process.arch !== "x64") {
      console.warn(`skipped: this cross-build test runs on x64 hosts (this is ${process.arch})`);
      return;
    }
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
      console.warn(
        `skipped: the arm64 build took over ${budgetMs / 1000} s here (fetching the runtime from the npm registry); run scripts/build --target linux-arm64 by hand`,
      );
      return;
    }
    const stdout = await new Response(proc.stdout).text();
    const stderr = await new Response(proc.stderr).text();
    if (outcome === 3) {
      console.warn(`skipped: the arm64 runtime could not be fetched from the npm registry:\n${stderr}`);
      return;
    }
    if (outcome !== 0) throw new Error(`scripts/build --target linux-arm64 failed (${outcome}):\n${stdout}\n${stderr}`);
    console.log(`scripts/build --target linux-arm64: ${Math.round(performance.now() - started)} ms\n${stdout}`);

    const exe = join(out, "fieldhub-linux-arm64");
    const header = elfHeader(exe);
    expect(header.magic).toBe("\x7fELF");
    expect(header.class64).toBe(true);
    expect(header.littleEndian).toBe(true);
    expect(header.machine).toBe(183); // EM_AARCH64

    const qemu = Bun.which("qemu-aarch64-static");
    if (qemu !== null && existsSync("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1")) {
      const ran = Bun.spawnSync([qemu, "-L", "/usr/aarch64-linux-gnu", exe, "version"], { cwd: work, timeout: 60_000 });
      expect(ran.stdout.toString()).toBe(`fieldhub ${packageJson.version} (arm64test)\n`);
    } else {
      console.warn("not run: install qemu-user-static and libc6-arm64-cross to run the arm64 executable here");
    }

    // install.sh puts a foreign executable in place under --root without running it.
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
  budgetMs + 60_000,
);
