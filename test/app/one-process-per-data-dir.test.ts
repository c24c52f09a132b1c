/**
 * One running appliance per data directory (app/data-dir-lock.ts): a second
 * `serve` or `demo` on the same --data exits at once naming the directory and the
 * pid that holds it; the short commands work beside the server; after kill -9
 * the kernel has dropped the lock and a new `serve` starts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningCli, runCli, serveArgs, servedUrl, startCli } from "../harness/cli.ts";
import { createKey } from "../harness/served-api.ts";

let workDir: string;
let dataDir: string;
let configPath: string;
const running: RunningCli[] = [];

function serve(): RunningCli {
  const started = startCli(serveArgs(configPath, dataDir));
  running.push(started);
  return started;
}

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "fieldhub-one-per-dir-"));
  dataDir = join(workDir, "data");
  configPath = join(workDir, "fieldhub.yaml");
  writeFileSync(configPath, "organizations: [{ key: acme, name: Acme }]\n");
});

afterAll(async () => {
  for (const started of running) if (started.proc.exitCode === null) started.proc.kill("SIGKILL");
  await Promise.all(running.map((started) => started.proc.exited));
  rmSync(workDir, { recursive: true, force: true });
});

test("a second serve or demo on the same data directory is refused; keys work beside; kill -9 frees it", async () => {
  const first = serve();
  await first.waitFor(servedUrl);

  for (const args of [
    serveArgs(configPath, dataDir),
    ["demo", "--data", dataDir, "--host", "127.0.0.1", "--port", "0", "--days", "1"],
  ]) {
    const began = performance.now();
    const second = await runCli(args, 10_000);
    expect({ command: args[0], code: second.code }).toEqual({ command: args[0], code: 1 });
    expect(second.stderr).toContain(dataDir);
    expect(second.stderr).toContain(`pid ${first.proc.pid}`);
    expect(second.stdout).not.toContain("serving on");
    // At once: no waiting for the lock, nothing started.
    expect(performance.now() - began).toBeLessThan(5_000);
  }
  expect(first.proc.exitCode).toBeNull();

  // Made beside the server (refused, it throws with the command's error).
  expect(await createKey(dataDir, "acme", "devices:read", "beside")).toStartWith("fh_");
  const listed = await runCli(["keys", "list", "--data", dataDir, "--json"]);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain("beside");

  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const next = serve();
  await next.waitFor(servedUrl);
  expect(await next.stop()).toBe(0);
}, 60_000);
