/**
 * A second `serve` (or `demo`) on the data directory of a
 * running one started silently: both polled, every webhook went out twice.
 * Wanted: one process owns a data directory (an OS file lock, released by the
 * kernel on kill -9); a second exits non-zero at once naming the directory and
 * the running pid; the CLI's short commands keep working beside the server.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../harness/cli.ts";
import { Cleanup } from "./harness/cleanup.ts";
import { spawnServe, startServe } from "./harness/serve.ts";

const cleanup = new Cleanup();
afterAll(() => cleanup.run());

test("a second serve on the same --data exits non-zero at once, naming the directory and the pid; keys create still works", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-second-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const first = await startServe({ workDir });
  cleanup.add(() => first.stop());

  const second = spawnServe({ workDir, dataDir: first.dataDir });
  cleanup.add(() => second.stop());
  const code = await Promise.race([second.proc.exited, Bun.sleep(5_000).then(() => null)]);
  expect({ code, stillRunning: second.alive() }).toEqual({ code: expect.any(Number), stillRunning: false });
  expect(code).not.toBe(0);
  expect(second.stderr()).toContain(first.dataDir);
  expect(second.stderr()).toContain(String(first.proc.pid));

  // The short commands are not servers: they work beside it.
  const keys = await runCli([
    "keys",
    "create",
    "--data",
    first.dataDir,
    "--org",
    "site",
    "--name",
    "beside",
    "--scopes",
    "devices:read",
  ]);
  expect(keys.code).toBe(0);

  // kill -9 leaves no stale lock: the kernel releases it with the process.
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const third = await startServe({ workDir, dataDir: first.dataDir });
  cleanup.add(() => third.stop());
  expect(third.alive()).toBe(true);
}, 30_000);

test("a demo on the data directory of a running serve exits non-zero at once", async () => {
  const workDir = mkdtempSync(join(tmpdir(), "fieldhub-faults-second-demo-"));
  cleanup.add(() => rmSync(workDir, { recursive: true, force: true }));
  const first = await startServe({ workDir });
  cleanup.add(() => first.stop());
  const demo = spawnServe({ workDir, command: "demo", dataDir: first.dataDir, extraArgs: ["--days", "1"] });
  cleanup.add(() => demo.stop());
  const code = await Promise.race([demo.proc.exited, Bun.sleep(5_000).then(() => null)]);
  expect(code).not.toBeNull();
  expect(code).not.toBe(0);
  expect(demo.stderr()).toContain(first.dataDir);
}, 30_000);
