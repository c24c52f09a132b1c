/**
 * What MQTT costs fieldhub (docs/mqtt.md; issue goal: "nothing about MQTT may slow
 * polling or the API"), measured on three `bun src/main.ts serve` processes run side
 * by side in the same run, with the same config but for the `mqtt` section:
 * - `on`: publishing to a private mosquitto (test/harness/mosquitto.ts);
 * - `off`: no `mqtt` section;
 * - `away`: `mqtt` naming a port nothing listens on (the broker away: retried with backoff).
 * Each polls --registers (2,000) int16 registers every second, --devices (20) Modbus
 * TCP devices on their own ports served by Debian's pymodbus
 * (scripts/bench/changing_peers.py), every value changing every second, so `on`
 * publishes every register every second.
 *
 * Each of --rounds rounds:
 * 1. idle: for --idle-s seconds, each process's CPU (utime + stime from
 *    /proc/PID/stat, as % of one core) and resident memory (VmRSS, sampled every
 *    second: the last and the highest);
 * 2. API: each process in turn (the order rotating by round) under --connections
 *    concurrent request loops on GET /v1/devices for --api-s seconds: requests per
 *    second and each request's latency (median, p99), while all three keep polling.
 * Prints every round, then the ratios on/off and away/off (median and range over the
 * rounds), with the machine's load average at the start and the end.
 *
 * Usage: bun scripts/bench/mqtt-cost.ts [--registers 2000] [--devices 20] [--rounds 3]
 *          [--idle-s 30] [--api-s 5] [--connections 8] [--warmup-s 20]
 * Needs /usr/bin/python3 with pymodbus and /usr/sbin/mosquitto (apt-get install
 * python3-pymodbus mosquitto).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { metricValue } from "../../test/faults/harness/serve.ts";
import { freePort, repoRoot, servedUrl } from "../../test/harness/cli.ts";
import { brokerPassword, brokerUser, hasMosquitto, startMosquitto } from "../../test/harness/mosquitto.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    registers: { type: "string" },
    devices: { type: "string" },
    rounds: { type: "string" },
    "idle-s": { type: "string" },
    "api-s": { type: "string" },
    connections: { type: "string" },
    "warmup-s": { type: "string" },
  },
});
const registerCount = Number(args.registers ?? 2000);
const deviceCount = Number(args.devices ?? 20);
const rounds = Number(args.rounds ?? 3);
const idleS = Number(args["idle-s"] ?? 30);
const apiS = Number(args["api-s"] ?? 5);
const connections = Number(args.connections ?? 8);
const warmupS = Number(args["warmup-s"] ?? 20);
const perDevice = Math.ceil(registerCount / deviceCount);
const python = "/usr/bin/python3";
if (!existsSync(python) || !hasMosquitto) throw new Error("needs python3-pymodbus and mosquitto (apt-get install)");

const dir = mkdtempSync(join(tmpdir(), "fieldhub-bench-mqtt-cost-"));
const loadAtStart = loadavg();
/** Every child this script starts, ended when it exits however it ends. */
const children: { kill(signal?: number | NodeJS.Signals): void }[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

// --- peers and broker ------------------------------------------------------------
const peers = Bun.spawn([python, join(import.meta.dir, "changing_peers.py"), String(deviceCount), String(perDevice)], {
  stdout: "pipe",
  stderr: "inherit",
});
children.push(peers);
const ports = await new Promise<number[]>((resolve, reject) => {
  // Read to the end (not only to READY): the peer's stdout stays drained, never a broken pipe.
  void (async () => {
    let text = "";
    for await (const chunk of peers.stdout) {
      text += new TextDecoder().decode(chunk);
      const ready = /READY (\S+)/.exec(text);
      if (ready?.[1] !== undefined) resolve(ready[1].split(",").map(Number));
    }
    reject(new Error("changing_peers.py ended before READY"));
  })();
});
const broker = await startMosquitto(join(dir, "broker"));
process.on("exit", () => void broker.stop());
writeFileSync(join(dir, "mqtt.pass"), `${brokerPassword}\n`, { mode: 0o600 });

function siteYaml(mqtt: string): string {
  const devices = ports.map(
    (port, index) => `      - name: meter-${index}
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: 1000
        registers:
${Array.from({ length: perDevice }, (_, i) => `          - { name: r${i}, address: ${i}, data_type: int16, unit: W }`).join("\n")}`,
  );
  return `${mqtt}organizations: [{ key: bench, name: Bench }]
gateways:
  - serial: GW-1
    name: GW-1
    bus: { type: tcp }
    devices:
${devices.join("\n")}
`;
}

// --- the three processes -----------------------------------------------------------
const variants = {
  on: `mqtt:\n  url: ${broker.url}\n  username: ${brokerUser}\n  password_file: ${join(dir, "mqtt.pass")}\n  client_id: bench-on\n`,
  off: "",
  away: `mqtt:\n  url: mqtt://127.0.0.1:${freePort()}\n  client_id: bench-away\n`,
} as const;
type Variant = keyof typeof variants;
const names = Object.keys(variants) as Variant[];

interface Running {
  name: Variant;
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  key: string;
}

async function startVariant(name: Variant): Promise<Running> {
  const work = join(dir, name);
  mkdirSync(work, { recursive: true });
  const config = join(work, "fieldhub.yaml");
  writeFileSync(config, siteYaml(variants[name]));
  const data = join(work, "data");
  const proc = Bun.spawn(
    [
      process.execPath,
      "src/main.ts",
      "serve",
      "--config",
      config,
      "--data",
      data,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ],
    { cwd: repoRoot, env: { ...process.env, CI: "true" }, stdout: "pipe", stderr: "ignore" },
  );
  children.push(proc);
  let stdout = "";
  let url: string | null = null;
  const reader = (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      // Only the start is read; the rest of the log is drained so the pipe never blocks.
      if (url === null) stdout += new TextDecoder().decode(chunk);
    }
  })();
  void reader;
  const deadline = Date.now() + 60_000;
  while (url === null) {
    if (Date.now() > deadline) throw new Error(`${name}: serve did not start\n${stdout}`);
    url = servedUrl(stdout);
    await Bun.sleep(50);
  }
  const created = Bun.spawnSync(
    [
      process.execPath,
      "src/main.ts",
      "keys",
      "create",
      "--data",
      data,
      "--org",
      "bench",
      "--name",
      "bench",
      "--scopes",
      "devices:read,registers:read",
      "--rate-limit",
      "100000",
      "--json",
    ],
    { cwd: repoRoot, env: { ...process.env, CI: "true" } },
  );
  if (created.exitCode !== 0) throw new Error(`${name}: keys create: ${created.stderr.toString()}`);
  const key = (JSON.parse(created.stdout.toString()) as { key: string }).key;
  return { name, proc, url, key };
}

const running: Running[] = [];
for (const name of names) running.push(await startVariant(name));

// --- measuring -----------------------------------------------------------------------
const ticksPerSecond = 100; // USER_HZ on Linux
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
}
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmRSS:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024;
}

async function idleWindow(): Promise<Record<Variant, { cpuPct: number; rssMb: number; rssMaxMb: number }>> {
  const before = new Map(running.map((server) => [server.name, cpuTicks(server.proc.pid)]));
  const max = new Map(running.map((server) => [server.name, 0]));
  const began = performance.now();
  while (performance.now() - began < idleS * 1000) {
    await Bun.sleep(1000);
    for (const server of running) max.set(server.name, Math.max(max.get(server.name) ?? 0, rssMb(server.proc.pid)));
  }
  const seconds = (performance.now() - began) / 1000;
  const result = {} as Record<Variant, { cpuPct: number; rssMb: number; rssMaxMb: number }>;
  for (const server of running) {
    const ticks = cpuTicks(server.proc.pid) - (before.get(server.name) ?? 0);
    result[server.name] = {
      cpuPct: round((ticks / ticksPerSecond / seconds) * 100, 1),
      rssMb: round(rssMb(server.proc.pid), 1),
      rssMaxMb: round(max.get(server.name) ?? 0, 1),
    };
  }
  return result;
}

async function apiLoad(server: Running): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const headers = { authorization: `Bearer ${server.key}` };
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + apiS * 1000;
  const began = performance.now();
  const loop = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      const response = await fetch(`${server.url}/v1/devices`, { headers });
      await response.arrayBuffer();
      latencies.push(performance.now() - start);
      if (response.status !== 200) errors++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  const seconds = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { rps: Math.round(latencies.length / seconds), p50: round(at(0.5), 2), p99: round(at(0.99), 2), errors };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

// --- warm-up: every process polling, `on` publishing, `away` away -------------------------
await Bun.sleep(warmupS * 1000);
const published0 = await metricValue(running[0]?.url ?? "", "fieldhub_mqtt_values_published_total");
const polls0 = await Promise.all(running.map((server) => metricValue(server.url, "fieldhub_ingest_readings_total")));
const health = await Promise.all(
  running.map(async (server) => (await (await fetch(`${server.url}/healthz`)).json()) as { mqtt?: { state: string } }),
);
if (published0 === 0 || polls0.some((count) => count === 0))
  throw new Error(`not polling or not publishing after the warm-up: ${published0} published, ${polls0} readings`);
console.error(
  `warm: mqtt ${health.map((entry, i) => `${running[i]?.name}=${entry.mqtt?.state ?? "none"}`).join(" ")}; values published by on: ${published0}`,
);

const results: {
  round: number;
  idle: Awaited<ReturnType<typeof idleWindow>>;
  api: Record<Variant, Awaited<ReturnType<typeof apiLoad>>>;
}[] = [];
const pollStart = performance.now();
for (let r = 0; r < rounds; r++) {
  const idle = await idleWindow();
  const api = {} as Record<Variant, Awaited<ReturnType<typeof apiLoad>>>;
  for (let i = 0; i < running.length; i++) {
    const server = running[(i + r) % running.length] as Running;
    api[server.name] = await apiLoad(server);
  }
  results.push({ round: r + 1, idle, api });
  console.error(JSON.stringify(results.at(-1)));
}
const pollSeconds = (performance.now() - pollStart) / 1000;
const polled = await Promise.all(running.map((server) => metricValue(server.url, "fieldhub_ingest_readings_total")));
const published = (await metricValue(running[0]?.url ?? "", "fieldhub_mqtt_values_published_total")) - published0;

for (const server of running) {
  server.proc.kill("SIGTERM");
  await server.proc.exited;
}
peers.kill("SIGTERM");
await broker.stop();
rmSync(dir, { recursive: true, force: true });

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
function ratios(pick: (entry: (typeof results)[number], variant: Variant) => number, variant: Variant) {
  const list = results.map((entry) => pick(entry, variant) / pick(entry, "off"));
  return { median: round(median(list), 2), min: round(Math.min(...list), 2), max: round(Math.max(...list), 2) };
}
const compare = (variant: Variant) => ({
  cpu: ratios((entry, v) => entry.idle[v].cpuPct, variant),
  rss: ratios((entry, v) => entry.idle[v].rssMb, variant),
  api_rps: ratios((entry, v) => entry.api[v].rps, variant),
  api_p50: ratios((entry, v) => entry.api[v].p50, variant),
  api_p99: ratios((entry, v) => entry.api[v].p99, variant),
});

console.log(
  JSON.stringify(
    {
      registers: deviceCount * perDevice,
      devices: deviceCount,
      rounds,
      idle_s: idleS,
      api_s: apiS,
      connections,
      // Readings polled per second over the rounds: the same pace with MQTT on, off and away.
      readings_per_s: Object.fromEntries(
        running.map((server, i) => [server.name, Math.round(((polled[i] ?? 0) - (polls0[i] ?? 0)) / pollSeconds)]),
      ),
      mqtt_values_published_per_s: Math.round(published / pollSeconds),
      load_average: { start: loadAtStart.map((n) => round(n, 2)), end: loadavg().map((n) => round(n, 2)) },
      rounds_detail: results,
      on_vs_off: compare("on"),
      away_vs_off: compare("away"),
    },
    null,
    2,
  ),
);
