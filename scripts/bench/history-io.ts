/**
 * Benchmark of `fieldhub history import|export` and `fieldhub mirror`, each against a
 * baseline measured in the same run (docs/benchmarks.md, "History export, import and
 * mirror"):
 *
 * 1. Import: N plant readings (registers x one-minute rounds, random walks) as line
 *    protocol, loaded into a private InfluxDB 1.x (HTTP /write, 10,000 lines a
 *    request, 4 at a time) and imported by `fieldhub history import` (a process,
 *    into a fresh store synced from the same plant's config). Target: fieldhub's rate
 *    >= 0.5x InfluxDB's, its peak RSS < 200 MB.
 * 2. Export: `fieldhub history export --format ndjson --out /dev/null` of the N
 *    readings. Target >= 1,000,000 rows/s; baseline: the same ndjson file copied from
 *    the page cache to /dev/null by a bare loop.
 * 3. Mirror: `fieldhub mirror` of a demo's week of history from a local `demo`,
 *    against a bare loop fetching the same pages (scripts/bench/mirror-bare-loop.ts:
 *    same requests, parsed, not written; a process of its own, as the mirror is).
 *    Target: within 1.2x of the bare loop's time.
 *
 * Usage: bun scripts/bench/history-io.ts [--readings 10000000] [--registers 2000]
 *          [--repeat 2] [--parts import,export,mirror] [--keep DIR]
 * Quick run: --readings 200000 --repeat 1.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, repoRoot } from "../../test/harness/cli.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    readings: { type: "string" },
    registers: { type: "string" },
    repeat: { type: "string" },
    parts: { type: "string" },
    keep: { type: "string" },
  },
});
const registersPerDevice = 20;
const devicesPerGateway = 10;
const registerCount = Number(args.registers ?? 2000);
const readings = Number(args.readings ?? 10_000_000);
const minutes = Math.ceil(readings / registerCount);
const total = minutes * registerCount;
const repeat = Math.max(1, Number(args.repeat ?? 2));
const parts = new Set((args.parts ?? "import,export,mirror").split(","));
const dir = args.keep ?? mkdtempSync(join(tmpdir(), "fieldhub-bench-history-"));
mkdirSync(dir, { recursive: true });
const bun = process.execPath;
const log = (text: string) => process.stderr.write(`${text}\n`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
const deviceCount = registerCount / registersPerDevice;
const start = Date.UTC(2025, 0, 1);

function plantConfig(): string {
  const lines = ["organizations: [{ key: bench, name: Bench }]", "gateways:"];
  for (let gateway = 0; gateway * devicesPerGateway < deviceCount; gateway++) {
    lines.push(
      `  - serial: BENCH-${gateway}`,
      `    name: Bench ${gateway}`,
      "    storage_interval_s: 60",
      "    bus: { type: tcp }",
      "    devices:",
    );
    for (let slot = 0; slot < devicesPerGateway && gateway * devicesPerGateway + slot < deviceCount; slot++) {
      const device = gateway * devicesPerGateway + slot;
      lines.push(
        `      - name: Device ${device}`,
        `        slave_id: ${slot + 1}`,
        "        host: 127.0.0.1",
        "        port: 1",
        "        registers:",
      );
      for (let offset = 0; offset < registersPerDevice; offset++) {
        lines.push(
          `          - { name: r${device * registersPerDevice + offset}, address: ${offset}, data_type: int16, scale_factor: 0.1 }`,
        );
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The plant's readings as line protocol, one minute round at a time; float fields (InfluxDB wants one type per field). */
async function writeLineProtocol(path: string): Promise<void> {
  const random = seededRandom(7);
  const values = new Float64Array(registerCount).map(() => 150 + Math.floor(random() * 150));
  const series = Array.from({ length: registerCount }, (_, index) => {
    const device = Math.floor(index / registersPerDevice);
    return `reading,gateway=BENCH-${Math.floor(device / devicesPerGateway)},device=Device\\ ${device},register=r${index} raw=`;
  });
  const writer = Bun.file(path).writer({ highWaterMark: 1 << 22 });
  for (let minute = 0; minute < minutes; minute++) {
    const seconds = (start + minute * 60_000) / 1000;
    let text = "";
    for (let index = 0; index < registerCount; index++) {
      const draw = random();
      values[index] = (values[index] as number) + (draw < 0.15 ? -1 : draw < 0.3 ? 1 : 0);
      text += `${series[index]}${values[index]} ${seconds + (Math.floor(index / registersPerDevice) % 50)}\n`;
    }
    writer.write(text);
    if (minute % 100 === 0) await writer.flush();
  }
  await writer.end();
}

async function run(command: string[]): Promise<{ seconds: number; rssMb: number; stderr: string }> {
  const began = performance.now();
  const proc = Bun.spawn(["/usr/bin/time", "-f", "maxrss %M", ...command], {
    cwd: repoRoot,
    stdout: "ignore",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  const code = await proc.exited;
  const seconds = (performance.now() - began) / 1000;
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}:\n${stderr}`);
  const rss = /maxrss (\d+)/.exec(stderr);
  return { seconds, rssMb: rss === null ? Number.NaN : Number(rss[1]) / 1024, stderr };
}

async function startInflux(): Promise<{ url: string; stop(): Promise<void> }> {
  const home = join(dir, `influx-${Date.now()}`);
  const port = freePort();
  const conf = join(home, "influxdb.conf");
  mkdirSync(home, { recursive: true });
  writeFileSync(
    conf,
    `reporting-disabled = true\nbind-address = "127.0.0.1:${freePort()}"\n[meta]\n  dir = "${home}/meta"\n[data]\n  dir = "${home}/data"\n  wal-dir = "${home}/wal"\n  query-log-enabled = false\n[http]\n  bind-address = "127.0.0.1:${port}"\n  log-enabled = false\n[monitor]\n  store-enabled = false\n`,
  );
  const proc = Bun.spawn(["influxd", "-config", conf], { stdout: "ignore", stderr: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if ((await fetch(`${url}/ping`).catch(() => null))?.status === 204) break;
    await Bun.sleep(100);
  }
  await fetch(`${url}/query`, { method: "POST", body: new URLSearchParams({ q: "CREATE DATABASE bench" }) });
  return {
    url,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** InfluxDB's load of the file: 10,000 lines a request, 4 requests in flight. */
async function influxLoad(file: string): Promise<number> {
  const influx = await startInflux();
  try {
    const began = performance.now();
    const inFlight = new Set<Promise<void>>();
    let batch: string[] = [];
    const send = (body: string) => {
      const request = fetch(`${influx.url}/write?db=bench&precision=s`, { method: "POST", body }).then(
        async (response) => {
          if (response.status !== 204) throw new Error(`influx write ${response.status}: ${await response.text()}`);
        },
      );
      const tracked = request.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    };
    const decoder = new TextDecoder();
    let rest = "";
    for await (const chunk of Bun.file(file).stream()) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        batch.push(line);
        if (batch.length === 10_000) {
          send(batch.join("\n"));
          batch = [];
          if (inFlight.size >= 4) await Promise.race(inFlight);
        }
      }
    }
    if (batch.length > 0) send(batch.join("\n"));
    await Promise.all(inFlight);
    return (performance.now() - began) / 1000;
  } finally {
    await influx.stop();
  }
}

const report: string[] = [];
const say = (line: string) => {
  report.push(line);
  log(line);
};

say(
  `history-io benchmark: ${fmt(total)} readings (${fmt(registerCount)} registers x ${fmt(minutes)} minutes); load ${load()}`,
);
const configPath = join(dir, "plant.yaml");
writeFileSync(configPath, plantConfig());
const lpFile = join(dir, "plant.lp");
if (parts.has("import") || parts.has("export") || parts.has("file")) {
  log("writing the line protocol file ...");
  await writeLineProtocol(lpFile);
  say(`line protocol file: ${fmt(statSync(lpFile).size / 1e6, 1)} MB`);
}
const storeDir = join(dir, "store");

if (parts.has("import") || parts.has("export")) {
  for (let round = 1; round <= repeat; round++) {
    const influxSeconds = parts.has("import") ? await influxLoad(lpFile) : Number.NaN;
    rmSync(storeDir, { recursive: true, force: true });
    await run([
      bun,
      "src/main.ts",
      "history",
      "import",
      "--data",
      storeDir,
      "--config",
      configPath,
      "--format",
      "ndjson",
      "/dev/null",
      "--quiet",
    ]);
    const ours = await run([
      bun,
      "src/main.ts",
      "history",
      "import",
      "--data",
      storeDir,
      "--format",
      "line-protocol",
      lpFile,
      "--quiet",
    ]);
    const influxRate = total / influxSeconds;
    const ourRate = total / ours.seconds;
    if (parts.has("import")) {
      say(
        `import round ${round} (load ${load()}): InfluxDB ${fmt(influxRate)} points/s (${fmt(influxSeconds, 1)} s); fieldhub ${fmt(ourRate)} readings/s (${fmt(ours.seconds, 1)} s, peak RSS ${fmt(ours.rssMb)} MB); ratio ${fmt(ourRate / influxRate, 2)}x (target >= 0.5x: ${ourRate / influxRate >= 0.5 ? "met" : "MISSED"}; RSS < 200 MB: ${ours.rssMb < 200 ? "met" : "MISSED"})`,
      );
    }
  }
}

if (parts.has("export")) {
  const ndjson = join(dir, "plant.ndjson");
  await run([bun, "src/main.ts", "history", "export", "--data", storeDir, "--out", ndjson, "--quiet"]);
  for (let round = 1; round <= repeat; round++) {
    const ours = await run([
      bun,
      "src/main.ts",
      "history",
      "export",
      "--data",
      storeDir,
      "--out",
      "/dev/null",
      "--quiet",
    ]);
    // Baseline: the same bytes from the page cache to /dev/null, no store, no formatting.
    const began = performance.now();
    const sink = Bun.file("/dev/null").writer({ highWaterMark: 1 << 20 });
    for await (const chunk of Bun.file(ndjson).stream()) {
      sink.write(chunk);
      await sink.flush();
    }
    await sink.end();
    const bareSeconds = (performance.now() - began) / 1000;
    const rate = total / ours.seconds;
    say(
      `export round ${round} (load ${load()}): fieldhub ${fmt(rate)} rows/s as ndjson to /dev/null (${fmt(ours.seconds, 2)} s incl. process start; target >= 1,000,000: ${rate >= 1e6 ? "met" : "MISSED"}); bare copy of the same ${fmt(statSync(ndjson).size / 1e6)} MB ${fmt(bareSeconds, 2)} s; ratio to bare ${fmt(bareSeconds / ours.seconds, 2)}x`,
    );
  }
}

if (parts.has("mirror")) {
  const demoDir = join(dir, "demo");
  const demo = Bun.spawn([bun, "src/main.ts", "demo", "--port", "0", "--data", demoDir, "--days", "7"], {
    cwd: repoRoot,
    env: { ...process.env, CI: "true" },
    // JSON logs (CI=true) on stdout; the banner with the URL on stderr.
    stdout: "ignore",
    stderr: "pipe",
  });
  let banner = "";
  const decoder = new TextDecoder();
  const reader = demo.stderr.getReader();
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`demo ended:\n${banner}`);
    banner += decoder.decode(value, { stream: true });
    url = /curl -H "[^"]+" (http:\/\/127\.0\.0\.1:\d+)\/v1\/devices\n/.exec(banner)?.[1];
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
  const keyRun = Bun.spawnSync(
    [
      bun,
      "src/main.ts",
      "keys",
      "create",
      "--data",
      demoDir,
      "--org",
      "demo",
      "--name",
      "bench",
      "--scopes",
      "devices:read,registers:read",
      "--rate-limit",
      "100000",
    ],
    { cwd: repoRoot },
  );
  const key = keyRun.stdout.toString().trim();
  const base = `${url}/v1`;
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
  for (let round = 1; round <= repeat; round++) {
    const bareRun = await run([bun, "scripts/bench/mirror-bare-loop.ts", base, key, since]);
    const bare = { seconds: bareRun.seconds, rows: Number(/rows (\d+)/.exec(bareRun.stderr)?.[1]) };
    const out = join(dir, `mirror-${round}.ndjson`);
    const ours = await run([
      bun,
      "src/main.ts",
      "mirror",
      "--url",
      base,
      "--key",
      key,
      "--out",
      out,
      "--since",
      since,
      "--quiet",
    ]);
    say(
      `mirror round ${round} (load ${load()}): a week of the demo, ${fmt(bare.rows)} readings; bare fetch loop ${fmt(bare.seconds, 2)} s; fieldhub mirror ${fmt(ours.seconds, 2)} s incl. process start; ratio ${fmt(ours.seconds / bare.seconds, 2)}x (target <= 1.2x: ${ours.seconds / bare.seconds <= 1.2 ? "met" : "MISSED"})`,
    );
  }
  demo.kill("SIGTERM");
  await demo.exited;
}

process.stdout.write(`${report.join("\n")}\n`);
if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
