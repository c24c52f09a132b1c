/**
 * Footprint of the compiled executable (targets: exec to the first successful
 * /v1/introspect under 500 ms; resident memory after ten minutes of the demo under
 * 120 MB; and its size), measured on `dist/fieldhub-linux-x64` (built by
 * scripts/build when missing).
 *
 * Usage: bun scripts/bench/footprint.ts [--minutes 10] [--executable PATH]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { demoSandboxKey } from "../../src/demo/demo-config.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { minutes: { type: "string" }, executable: { type: "string" } },
});
const minutes = Number(values.minutes ?? 10);
const repo = join(import.meta.dir, "..", "..");
const executable = values.executable ?? join(repo, "dist", "fieldhub-linux-x64");
if (!existsSync(executable)) {
  const build = Bun.spawnSync(["bash", join(repo, "scripts", "build"), "--target", "linux-x64"], {
    cwd: repo,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (build.exitCode !== 0) throw new Error("scripts/build failed");
}

function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** Milliseconds from spawning the executable to its first 200 on /v1/introspect. */
async function timeToFirstAnswer(
  args: string[],
  key: string,
  port: number,
): Promise<{ ms: number; proc: ReturnType<typeof Bun.spawn> }> {
  const began = performance.now();
  const proc = Bun.spawn([executable, ...args], {
    stdout: "ignore",
    stderr: "ignore",
    env: { ...process.env, CI: "true" },
  });
  const deadline = began + 30_000;
  while (performance.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/v1/introspect`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (response.status === 200) return { ms: performance.now() - began, proc };
    } catch {
      // not listening yet
    }
    await Bun.sleep(2);
  }
  proc.kill();
  throw new Error(`no answer from ${args.join(" ")}`);
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

const work = mkdtempSync(join(tmpdir(), "fieldhub-footprint-"));
const lines: string[] = [`executable ${executable}: ${(statSync(executable).size / 1e6).toFixed(1)} MB`];
try {
  // serve on a small config with an empty store; the key is made with the executable itself.
  const config = join(work, "fieldhub.yaml");
  writeFileSync(
    config,
    "organizations: [{ key: site, name: Site }]\ngateways: [{ serial: GW-1, name: Gateway, bus: { type: tcp } }]\n",
  );
  const serveData = join(work, "serve");
  Bun.spawnSync([executable, "config", "check", config]);
  const starts: number[] = [];
  let key = "";
  for (let round = 0; round < 5; round++) {
    const port = freePort();
    const { ms, proc } = await (async () => {
      if (key === "") {
        // First start creates the store; make a key, then measure the later starts.
        const first = Bun.spawn(
          [executable, "serve", "--config", config, "--data", serveData, "--port", String(port)],
          { stdout: "ignore", stderr: "ignore" },
        );
        await Bun.sleep(1_000);
        key = JSON.parse(
          Bun.spawnSync([
            executable,
            "keys",
            "create",
            "--data",
            serveData,
            "--org",
            "site",
            "--name",
            "bench",
            "--scopes",
            "devices:read",
            "--json",
          ]).stdout.toString(),
        ).key;
        first.kill("SIGTERM");
        await first.exited;
      }
      return timeToFirstAnswer(["serve", "--config", config, "--data", serveData, "--port", String(port)], key, port);
    })();
    starts.push(ms);
    proc.kill("SIGTERM");
    await proc.exited;
  }
  starts.sort((a, b) => a - b);
  lines.push(
    `serve, exec -> first 200 on /v1/introspect: median ${starts[2]?.toFixed(0)} ms (runs: ${starts.map((ms) => ms.toFixed(0)).join(", ")}) (target < 500 ms) ${(starts[2] ?? 1e9) < 500 ? "OK" : "MISSED"}`,
  );

  // The demo: first start (7 days backfilled), then a restart on its data, then memory over time.
  const demoData = join(work, "demo");
  let port = freePort();
  const cold = await timeToFirstAnswer(["demo", "--port", String(port), "--data", demoData], demoSandboxKey, port);
  cold.proc.kill("SIGTERM");
  await cold.proc.exited;
  port = freePort();
  const warm = await timeToFirstAnswer(["demo", "--port", String(port), "--data", demoData], demoSandboxKey, port);
  lines.push(
    `demo, exec -> first 200: ${cold.ms.toFixed(0)} ms on a fresh data directory (7 days of history backfilled first), ${warm.ms.toFixed(0)} ms on its data again`,
  );
  const samples: string[] = [];
  for (let minute = 1; minute <= minutes; minute++) {
    // Keep it busy like a client would: a request every two seconds (the sandbox key allows 60 a minute).
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      await fetch(`http://127.0.0.1:${port}/v1/devices`, {
        headers: { authorization: `Bearer ${demoSandboxKey}` },
      }).then((response) => response.arrayBuffer());
      await Bun.sleep(2_000);
    }
    samples.push(`${minute} min ${rssMb(warm.proc.pid).toFixed(0)} MB`);
  }
  const final = rssMb(warm.proc.pid);
  lines.push(`demo resident memory (VmRSS): ${samples.join(", ")}`);
  lines.push(`  after ${minutes} minutes: ${final.toFixed(0)} MB (target < 120 MB) ${final < 120 ? "OK" : "MISSED"}`);
  warm.proc.kill("SIGTERM");
  await warm.proc.exited;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(`${lines.join("\n")}\n`);
