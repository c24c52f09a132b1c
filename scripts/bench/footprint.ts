/**
 * Memory and idle CPU of the compiled executable (docs/benchmarks.md "Footprint"),
 * measured on `dist/fieldhub-linux-x64` (built by scripts/build when missing), in one
 * run, side by side:
 *
 * - fieldhub `serve` polling 1,000 registers every 10 s: ten Modbus TCP devices of
 *   100 registers each, served by Debian's pymodbus (scripts/bench/pymodbus_peers.py,
 *   one port per device). Targets after 10 minutes: resident (VmRSS) <= 80 MB,
 *   anonymous (RssAnon) <= 30 MB, peak since start (VmHWM) <= 100 MB; growth of
 *   resident from minute 10 (or half the run, when shorter) to the end <= 5 %.
 * - fieldhub `serve` polling 100 registers every 10 s: its CPU time (user + system,
 *   /proc/PID/stat) from the end of the first minute to the end, as a share of one
 *   core. Target <= 1 %.
 * - a bare Bun HTTP server (scripts/bench/bare-http-server.ts) compiled with the
 *   same `bun build --compile` flags: what the runtime alone takes.
 *
 * Each is sampled once a minute; resident, anonymous, file-backed (RssFile) and peak
 * are printed apart. At the end each fieldhub's /metrics must show polls with no
 * errors and readings handed to ingest (a footprint of a box that does nothing would
 * prove nothing).
 *
 * Both run with the environment install.sh's unit gives fieldhub (its `Environment=`
 * lines); the bare server is compiled with scripts/build's flags.
 *
 * Usage: bun scripts/bench/footprint.ts [--minutes 10] [--executable PATH] [--no-unit-env]
 *   --minutes 60 is the one-hour soak; --no-unit-env runs without the unit's
 *   environment (as `fieldhub serve` from a shell). Needs /usr/bin/python3 with pymodbus.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { minutes: { type: "string" }, executable: { type: "string" }, "no-unit-env": { type: "boolean" } },
});
const minutes = Number(values.minutes ?? 10);
if (!Number.isInteger(minutes) || minutes < 2) throw new Error("--minutes: a whole number >= 2");
const repo = join(import.meta.dir, "..", "..");
const bun = join(repo, "node_modules", ".bin", "bun");
const python = "/usr/bin/python3";
if (!existsSync(python)) throw new Error("needs Debian's pymodbus: apt-get install python3-pymodbus");
const executable = values.executable ?? join(repo, "dist", "fieldhub-linux-x64");
if (!existsSync(executable)) {
  const build = Bun.spawnSync(["bash", join(repo, "scripts", "build"), "--target", "linux-x64"], {
    cwd: repo,
    stdout: "inherit",
    stderr: "inherit",
  });
  if (build.exitCode !== 0) throw new Error("scripts/build failed");
}

type Memory = { resident: number; anonymous: number; file: number; peak: number };
const mb = (kb: number) => kb / 1024;

function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return {
    resident: mb(field("VmRSS")),
    anonymous: mb(field("RssAnon")),
    file: mb(field("RssFile")),
    peak: mb(field("VmHWM")),
  };
}

/** CPU seconds (user + system) the process has used. */
function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = 100; // USER_HZ on Linux
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** Reads a child's stdout until a line matches; the child goes on writing into the void. */
async function waitForLine(
  proc: Bun.Subprocess<Bun.SpawnOptions.Writable, "pipe", Bun.SpawnOptions.Readable>,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
    const match = pattern.exec(text);
    if (match !== null) {
      // Keep draining so a full pipe never blocks the child.
      void (async () => {
        while (!(await reader.read()).done) {}
      })();
      return match;
    }
  }
  throw new Error(`no line matching ${pattern} from ${proc.pid}: ${text.slice(-500)}`);
}

function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

const registersPerDevice = 100;
const work = mkdtempSync(join(tmpdir(), "fieldhub-footprint-"));
const children: Bun.Subprocess<Bun.SpawnOptions.Writable, "pipe", Bun.SpawnOptions.Readable>[] = [];
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  process.stderr.write(`${line}\n`);
};
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");

try {
  say(`executable ${executable}: ${(statSync(executable).size / 1e6).toFixed(1)} MB; Bun ${Bun.version}`);
  say(`load average at start: ${load()} (${navigator.hardwareConcurrency} cores)`);
  // As systemd runs it: install.sh's unit sets the runtime's environment.
  const runtimeEnv = values["no-unit-env"] === true ? {} : unitEnvironment();
  say(`build flags: ${buildFlags().join(" ")}; environment: ${JSON.stringify(runtimeEnv)}`);

  // The peers: 10 devices for the 1,000-register box, 1 for the 100-register one.
  const deviceCount = 11;
  const spec = {
    devices: Array.from({ length: deviceCount }, (_, device) => ({
      unit: 1,
      hr: Array.from({ length: registersPerDevice }, (_, address) => ({
        address,
        type: "int16",
        value: (device * 100 + address) % 30_000,
      })),
    })),
  };
  const peers = Bun.spawn([python, join(import.meta.dir, "pymodbus_peers.py")], {
    stdin: new Blob([JSON.stringify(spec)]),
    stdout: "pipe",
    stderr: "inherit",
  });
  children.push(peers);
  const ports = (await waitForLine(peers, /READY ([\d,]+)/))[1]?.split(",").map(Number) ?? [];

  // The baseline, compiled with scripts/build's flags.
  const bare = join(work, "bare-http-server");
  const compiled = Bun.spawnSync(
    [bun, "build", ...buildFlags(), join(import.meta.dir, "bare-http-server.ts"), "--outfile", bare],
    { stdout: "ignore", stderr: "inherit" },
  );
  if (compiled.exitCode !== 0) throw new Error("could not compile the bare server");

  const serve = (name: string, devicePorts: number[]) => {
    const registers = Array.from(
      { length: registersPerDevice },
      (_, address) => `          - { name: r${address}, address: ${address}, data_type: int16 }`,
    ).join("\n");
    const devices = devicePorts
      .map(
        (port, index) => `      - name: device-${index}
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: 10000
        registers:
${registers}`,
      )
      .join("\n");
    const config = join(work, `${name}.yaml`);
    writeFileSync(
      config,
      `organizations: [{ key: site, name: Site }]
gateways:
  - serial: GW-${name}
    name: ${name}
    bus: { type: tcp }
    devices:
${devices}
`,
    );
    const port = freePort();
    const proc = Bun.spawn(
      [executable, "serve", "--config", config, "--data", join(work, name), "--host", "127.0.0.1", "--port", `${port}`],
      { stdout: "pipe", stderr: "ignore", cwd: work, env: { ...process.env, ...runtimeEnv, CI: "true" } },
    );
    children.push(proc);
    return { proc, url: `http://127.0.0.1:${port}` };
  };
  const box = serve("registers-1000", ports.slice(0, 10));
  const idle = serve("registers-100", ports.slice(10));
  const bareProc = Bun.spawn([bare], {
    stdout: "pipe",
    stderr: "ignore",
    cwd: work,
    env: { ...process.env, ...runtimeEnv },
  });
  children.push(bareProc);
  const barePort = Number((await waitForLine(bareProc, /READY (\d+)/))[1]);
  await fetch(`http://127.0.0.1:${barePort}/`).then((response) => response.arrayBuffer());
  await waitForLine(box.proc, /fieldhub serving on/);
  await waitForLine(idle.proc, /fieldhub serving on/);
  const started = performance.now();
  say(
    `pids: fieldhub 1,000 registers ${box.proc.pid}, fieldhub 100 registers ${idle.proc.pid}, bare Bun server ${bareProc.pid}`,
  );

  const format = (memory: Memory) =>
    `${memory.resident.toFixed(1)} / ${memory.anonymous.toFixed(1)} / ${memory.file.toFixed(1)} / ${memory.peak.toFixed(1)}`;
  say(
    "minute | fieldhub 1,000 registers | fieldhub 100 registers | bare Bun server   (MB: resident / anon / file / peak)",
  );
  const boxSamples: Memory[] = [];
  let idleCpuFrom = 0;
  for (let minute = 1; minute <= minutes; minute++) {
    await Bun.sleep(Math.max(0, started + minute * 60_000 - performance.now()));
    if (minute === 1) idleCpuFrom = cpuSecondsOf(idle.proc.pid);
    const sample = memoryOf(box.proc.pid);
    boxSamples.push(sample);
    say(`${minute} | ${format(sample)} | ${format(memoryOf(idle.proc.pid))} | ${format(memoryOf(bareProc.pid))}`);
  }
  const idleCpu = (cpuSecondsOf(idle.proc.pid) - idleCpuFrom) / ((minutes - 1) * 60);
  const boxCpu = cpuSecondsOf(box.proc.pid) / ((performance.now() - started) / 1000);

  // The boxes did their work: polls without errors, readings handed to ingest.
  for (const [name, { url }] of [
    ["1,000 registers", box],
    ["100 registers", idle],
  ] as const) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const metric = (metricName: string) =>
      [...text.matchAll(new RegExp(`^${metricName}(?:\\{[^}]*\\})? (\\d+(?:\\.\\d+)?)$`, "gm"))].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    const requests = metric("fieldhub_modbus_requests_total");
    const errors = metric("fieldhub_modbus_errors_total");
    const readings = metric("fieldhub_ingest_readings_total");
    say(`fieldhub ${name}: ${requests} Modbus requests, ${errors} errors, ${readings} readings to ingest`);
    if (requests === 0 || errors > 0 || readings === 0) throw new Error(`fieldhub ${name} did not poll cleanly`);
  }

  const last = boxSamples[boxSamples.length - 1] as Memory;
  const from = boxSamples[Math.min(10, Math.floor(minutes / 2)) - 1] as Memory;
  const growth = (last.resident - from.resident) / from.resident;
  const bareLast = memoryOf(bareProc.pid);
  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  say(`load average at end: ${load()}`);
  say(`after ${minutes} minutes, fieldhub polling 1,000 registers every 10 s (bare Bun server beside it):`);
  say(
    `  resident ${last.resident.toFixed(1)} MB (bare ${bareLast.resident.toFixed(1)}) target <= 80: ${verdict(last.resident <= 80)}`,
  );
  say(
    `  anonymous ${last.anonymous.toFixed(1)} MB (bare ${bareLast.anonymous.toFixed(1)}) target <= 30: ${verdict(last.anonymous <= 30)}`,
  );
  say(`  file-backed ${last.file.toFixed(1)} MB (bare ${bareLast.file.toFixed(1)})`);
  say(
    `  peak since start ${last.peak.toFixed(1)} MB (bare ${bareLast.peak.toFixed(1)}) target <= 100: ${verdict(last.peak <= 100)}`,
  );
  say(
    `  growth of resident from minute ${Math.min(10, Math.floor(minutes / 2))} to ${minutes}: ${(growth * 100).toFixed(1)} % target <= 5 %: ${verdict(growth <= 0.05)}`,
  );
  say(`  CPU ${(boxCpu * 100).toFixed(2)} % of one core (whole run, start included)`);
  say(
    `fieldhub polling 100 registers every 10 s: CPU ${(idleCpu * 100).toFixed(2)} % of one core (minutes 1 to ${minutes}) target <= 1 %: ${verdict(idleCpu <= 0.01)}`,
  );
} finally {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((child) => child.exited));
  rmSync(work, { recursive: true, force: true });
}
process.stdout.write(`${lines.join("\n")}\n`);

/** scripts/build's `bun build` flags (its `compile=(...)` list, without the commit's --define). */
function buildFlags(): string[] {
  const script = readFileSync(join(repo, "scripts", "build"), "utf8");
  const list = /\n\s*compile=\(([^)]*)\)/.exec(script)?.[1];
  if (list === undefined) throw new Error("scripts/build has no compile=(...) list");
  const flags = list.split(/\s+/).filter((flag) => flag.startsWith("--"));
  return flags.filter((flag) => flag !== "--define");
}

/** The environment install.sh's unit gives the executable (its `Environment=` lines). */
function unitEnvironment(): Record<string, string> {
  const script = readFileSync(join(repo, "install.sh"), "utf8");
  return Object.fromEntries(
    [...script.matchAll(/^Environment=([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/gm)].map((match) => [match[1], match[2]]),
  );
}
