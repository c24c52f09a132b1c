/**
 * A site catching up with its central (docs/fleet.md, "Forwarding"), on real
 * processes: a site whose store holds one day of 2,000 registers (2.88M readings,
 * imported before it starts) forwards them to a central `fieldhub serve`, on SQLite
 * and on a private PostgreSQL (test/harness/postgres.ts, fsync on). Measured: from
 * the site's start to the round that sent everything (its /healthz `complete_through`).
 * Baseline in the same run: `fieldhub history import` of the same rows straight
 * into a fresh central of the same kind (the central's own write path, no network,
 * no forwarding).
 *
 *   node_modules/.bin/bun scripts/bench/forwarding.ts [--registers 2000] [--days 1] [--central sqlite,postgres] [--repeat 2]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { freePort, runCli, servedUrl, startCli } from "../../test/harness/cli.ts";
import { type PrivatePostgres, startPostgres } from "../../test/harness/postgres.ts";

const { values: options } = parseArgs({
  options: {
    registers: { type: "string", default: "2000" },
    days: { type: "string", default: "1" },
    central: { type: "string", default: "sqlite,postgres" },
    repeat: { type: "string", default: "2" },
  },
});
const registerCount = Number(options.registers);
const days = Number(options.days);
const repeat = Number(options.repeat);
const kinds = (options.central ?? "").split(",") as ("sqlite" | "postgres")[];
const perDevice = 20;
const devicesPerGateway = 10;
const readingCount = registerCount * days * 1440;
const dayStart = Math.floor(Date.now() / 86_400_000) * 86_400_000 - days * 86_400_000;

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (value: number) => Math.round(value).toLocaleString("en-US");

function siteYaml(uplink: string): string {
  const lines = [uplink, "organizations: [{ key: site, name: Site }]", "gateways:"];
  const gateways = Math.ceil(registerCount / (perDevice * devicesPerGateway));
  for (let g = 0; g < gateways; g++) {
    // Devices nobody answers for, polled once an hour: the site's work is forwarding.
    lines.push(
      `  - serial: GW-${g}`,
      `    name: Gateway ${g}`,
      "    storage_interval_s: 60",
      "    bus: { type: tcp }",
      "    devices:",
    );
    for (let d = 0; d < devicesPerGateway; d++) {
      lines.push(
        `      - name: D${d}`,
        `        slave_id: ${d + 1}`,
        "        host: 127.0.0.1",
        "        port: 1",
        "        poll_interval_ms: 3600000",
        "        registers:",
      );
      for (let r = 0; r < perDevice; r++) lines.push(`          - { name: r${r}, address: ${r}, data_type: int16 }`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The day's readings as ndjson, named by gateway, device and register, written to `path`. */
function writeHistory(path: string): void {
  const chunks: string[] = [];
  const gateways = Math.ceil(registerCount / (perDevice * devicesPerGateway));
  for (let minute = 0; minute < days * 1440; minute++) {
    const ts = new Date(dayStart + minute * 60_000).toISOString();
    let rows = "";
    for (let g = 0; g < gateways; g++) {
      for (let d = 0; d < devicesPerGateway; d++) {
        for (let r = 0; r < perDevice; r++) {
          rows += `{"gateway":"GW-${g}","device":"D${d}","register":"r${r}","ts":"${ts}","raw_value":${(minute + r * 7) % 400}}\n`;
        }
      }
    }
    chunks.push(rows);
  }
  writeFileSync(path, chunks.join(""));
}

/** Runs a command to its end (at most 10 minutes); its stdout, or the error with its stderr. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<string> {
  const result = await runCli(args, 600_000, env);
  if (result.code !== 0) throw new Error(`fieldhub ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/** How long a command takes from spawn to exit (ms). */
async function timed(args: string[], env: Record<string, string> = {}): Promise<number> {
  const began = performance.now();
  await cli(args, env);
  return performance.now() - began;
}

async function round(
  kind: "sqlite" | "postgres",
  work: string,
  history: string,
  pg: PrivatePostgres | null,
  n: number,
) {
  const centralEnv: Record<string, string> =
    pg === null ? {} : { FIELDHUB_DATABASE_URL: await pg.database(`forward_${n}`) };
  const baselineEnv: Record<string, string> =
    pg === null ? {} : { FIELDHUB_DATABASE_URL: await pg.database(`baseline_${n}`) };
  writeFileSync(join(work, "central.yaml"), "organizations: [{ key: acme, name: Acme }]\n");
  const port = freePort();
  const central = startCli(
    [
      "serve",
      "--config",
      join(work, "central.yaml"),
      "--data",
      join(work, `central-${n}`),
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    centralEnv,
  );
  await central.waitFor(servedUrl, 60_000);
  try {
    const token = await cli(
      ["edges", "create", "--data", join(work, `central-${n}`), "--org", "acme", "--name", "north"],
      centralEnv,
    );
    const configPath = join(work, `site-${n}.yaml`);
    writeFileSync(
      configPath,
      siteYaml(`uplink: { url: "http://127.0.0.1:${port}", token: ${token}, check_interval_s: 1 }`),
    );
    const siteDir = join(work, `site-${n}`);
    await timed([
      "history",
      "import",
      "--data",
      siteDir,
      "--config",
      configPath,
      "--format",
      "ndjson",
      "--quiet",
      history,
    ]);

    // The baseline: the same rows imported straight into a fresh central of the same kind.
    const baselineMs = await timed(
      [
        "history",
        "import",
        "--data",
        join(work, `baseline-${n}`),
        "--config",
        configPath,
        "--format",
        "ndjson",
        "--quiet",
        history,
      ],
      baselineEnv,
    );

    const site = startCli(["serve", "--config", configPath, "--data", siteDir, "--host", "127.0.0.1", "--port", "0"]);
    const began = performance.now();
    try {
      const url = await site.waitFor(servedUrl, 60_000);
      for (;;) {
        const health = (await (await fetch(`${url}/healthz`)).json()) as {
          uplink?: {
            forwarded_readings: number;
            complete_through: string | null;
            state: string;
            reason: string | null;
          };
        };
        const uplink = health.uplink;
        if (uplink?.state === "refused") throw new Error(`refused: ${uplink.reason}`);
        if ((uplink?.forwarded_readings ?? 0) >= readingCount && uplink?.complete_through !== null) break;
        if (performance.now() - began > 600_000) throw new Error("not caught up in 10 minutes");
        await Bun.sleep(100);
      }
    } finally {
      await site.stop();
    }
    const forwardMs = performance.now() - began;
    return { kind, baselineMs, forwardMs };
  } finally {
    await central.stop();
  }
}

const work = mkdtempSync(join(tmpdir(), "fieldhub-bench-forwarding-"));
let pg: PrivatePostgres | null = null;
try {
  const history = join(work, "day.ndjson");
  writeHistory(history);
  if (kinds.includes("postgres")) pg = await startPostgres({ durable: true, sharedBuffers: "128MB" });
  out(`${fmt(readingCount)} readings: ${days} day(s) of ${fmt(registerCount)} registers a minute; load ${load()}`);
  let n = 0;
  for (let r = 0; r < repeat; r++) {
    for (const kind of kinds) {
      const result = await round(kind, work, history, kind === "postgres" ? pg : null, n++);
      const forwardRate = readingCount / (result.forwardMs / 1000);
      const baselineRate = readingCount / (result.baselineMs / 1000);
      out(
        `${kind} central, round ${r + 1}: site -> central ${fmt(forwardRate)} readings/s (${(result.forwardMs / 1000).toFixed(1)} s, target < 60 s: ${result.forwardMs < 60_000 ? "OK" : "MISSED"}); ` +
          `history import into the central ${fmt(baselineRate)} readings/s (${(result.baselineMs / 1000).toFixed(1)} s); ratio ${(forwardRate / baselineRate).toFixed(2)}x; load ${load()}`,
      );
    }
  }
} finally {
  await pg?.stop();
  rmSync(work, { recursive: true, force: true });
}
