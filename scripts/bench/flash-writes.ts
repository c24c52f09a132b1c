/**
 * Bytes written to disk per stored reading at steady state (target 2:
 * at most 100, moonshot 20), through a real `fieldhub serve` process with default
 * settings: 10 TCP gateways of one device x 200 registers each (2,000 registers),
 * polled every 5 s from Debian's pymodbus (scripts/bench/pymodbus_peers.py),
 * stored once a minute. The measure is the serve process's `write_bytes` from
 * /proc/PID/io over `--minutes` after a warm-up past start-up, divided by the
 * readings stored meanwhile (counted in the store file), and scaled to a day.
 *
 * The same plant is served, in the same run and at the same time, to the layout
 * before the block history (one row per reading): the tree of the commit before the block
 * readings store was added (`git archive` into a temp dir, node_modules linked),
 * so the ratio compares like with like. `--baseline-ref REF` picks another tree,
 * `--no-baseline` skips it.
 *
 * The daily close of a period (once a day, encoding the day into blocks) does not
 * fall inside a run of minutes; docs/benchmarks.md adds its measured cost.
 *
 * Usage: bun scripts/bench/flash-writes.ts [--minutes 3] [--warmup-s 75] [--baseline-ref REF] [--no-baseline]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    minutes: { type: "string" },
    "warmup-s": { type: "string" },
    "baseline-ref": { type: "string" },
    "no-baseline": { type: "boolean" },
  },
});
const minutes = Number(values.minutes ?? 3);
const warmupS = Number(values["warmup-s"] ?? 75);
const repoRoot = join(import.meta.dir, "..", "..");
const gateways = 10;
const registersPerDevice = 200;
const pollS = 5;
const storageS = 60;
const python = "/usr/bin/python3";
if (!(await Bun.file(python).exists()))
  throw new Error("needs Debian's python3-pymodbus (apt-get install python3-pymodbus)");

const work = mkdtempSync(join(tmpdir(), "fieldhub-flash-"));
const children: { kill(signal?: number | NodeJS.Signals): void }[] = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

// --- the plant: one pymodbus process, one TCP port per device ------------------
const entryOf = (index: number) =>
  index % 2 === 0
    ? { address: index * 2, type: "int16", value: (index * 37) % 3000 }
    : { address: index * 2, type: "float32", value: 20 + index / 7 };
const peer = Bun.spawn([python, join(import.meta.dir, "pymodbus_peers.py")], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
});
children.push(peer);
peer.stdin.write(
  JSON.stringify({
    devices: Array.from({ length: gateways }, () => ({
      unit: 1,
      hr: Array.from({ length: registersPerDevice }, (_, index) => entryOf(index)),
    })),
  }),
);
await peer.stdin.end();
const ports = await (async () => {
  const reader = peer.stdout.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`pymodbus peers did not start: ${text}`);
    text += new TextDecoder().decode(value);
    const match = /READY ([\d,]+)\n/.exec(text);
    if (match) return (match[1] ?? "").split(",").map(Number);
  }
})();

const registersYaml = Array.from({ length: registersPerDevice }, (_, index) => {
  const entry = entryOf(index);
  return `          - { name: r${index}, address: ${entry.address}, data_type: ${entry.type} }`;
}).join("\n");
const configYaml = `organizations: [{ key: flash, name: Flash }]
gateways:
${ports
  .map(
    (port, index) => `  - serial: FLASH-${index + 1}
    name: Flash ${index + 1}
    storage_interval_s: ${storageS}
    bus: { type: tcp }
    devices:
      - name: Meter
        slave_id: 1
        host: 127.0.0.1
        port: ${port}
        poll_interval_ms: ${pollS * 1000}
        registers:
${registersYaml}`,
  )
  .join("\n")}
`;
const configPath = join(work, "fieldhub.yaml");
writeFileSync(configPath, configYaml);

// --- the layouts ------------------------------------------------------------------
function baselineTree(): string | null {
  if (values["no-baseline"]) return null;
  const git = (args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: repoRoot });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
    return result.stdout.toString().trim();
  };
  const added = git(["log", "--diff-filter=A", "--format=%H", "--", "src/store/history/reading-store.ts"])
    .split("\n")
    .at(-1);
  const ref = values["baseline-ref"] ?? (added ? `${added}^` : null);
  if (ref === null) return null;
  const tree = join(work, "baseline");
  Bun.spawnSync(["mkdir", "-p", tree]);
  const archive = Bun.spawnSync(["sh", "-c", `git archive ${ref} | tar -x -C ${tree}`], { cwd: repoRoot });
  if (archive.exitCode !== 0) throw new Error(`git archive ${ref}: ${archive.stderr.toString()}`);
  symlinkSync(join(repoRoot, "node_modules"), join(tree, "node_modules"));
  process.stderr.write(`baseline: ${git(["rev-parse", "--short", ref])} (${ref})\n`);
  return tree;
}

type Layout = { name: string; root: string; dataDir: string; pid: number; count: () => number };

function countStored(dataDir: string): number {
  const db = new Database(join(dataDir, "fieldhub.db"), { readonly: true });
  try {
    const tables = new Set(
      db
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((row) => row.name),
    );
    let count = 0;
    if (tables.has("readings"))
      count += db.query<{ n: number }, []>("SELECT count(*) AS n FROM readings").get()?.n ?? 0;
    // A tail row carrying only an aggregate (its `agg` flags' bit 0, history/tail-aggregate.ts) is no reading.
    const tailColumns = tables.has("history_tail")
      ? db
          .query<{ name: string }, []>("PRAGMA table_info(history_tail)")
          .all()
          .map((row) => row.name)
      : [];
    const readingRow = tailColumns.includes("agg")
      ? "WHERE agg IS NULL OR substr(hex(agg), 2, 1) NOT IN ('1', '3', '5', '7', '9', 'B', 'D', 'F')"
      : "";
    if (tables.has("history_tail"))
      count += db.query<{ n: number }, []>(`SELECT count(*) AS n FROM history_tail ${readingRow}`).get()?.n ?? 0;
    if (tables.has("history_blocks"))
      count += db.query<{ n: number }, []>("SELECT coalesce(sum(count), 0) AS n FROM history_blocks").get()?.n ?? 0;
    return count;
  } finally {
    db.close();
  }
}

async function startServe(name: string, root: string): Promise<Layout> {
  const dataDir = join(work, `data-${name}`);
  const proc = Bun.spawn(
    [
      process.execPath,
      "src/main.ts",
      "serve",
      "--config",
      configPath,
      "--data",
      dataDir,
      "--host",
      "127.0.0.1",
      "--port",
      "0",
    ],
    { cwd: root, stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, CI: "true" } },
  );
  children.push(proc);
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("fieldhub serving on")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${name}: serve ended: ${text}${await new Response(proc.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  // Keep draining its output so it never blocks on a full pipe.
  (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  (async () => {
    for await (const _ of proc.stderr) {
    }
  })();
  return { name, root, dataDir, pid: proc.pid, count: () => countStored(dataDir) };
}

const writeBytes = (pid: number) => {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  return Number(/write_bytes: (\d+)/.exec(io)?.[1] ?? 0);
};

const layouts: Layout[] = [await startServe("blocks", repoRoot)];
const baseline = baselineTree();
if (baseline !== null)
  layouts.push(await startServe(values["baseline-ref"] === undefined ? "rows" : "baseline", baseline));

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
process.stderr.write(`warming up ${warmupS} s (load ${load()})\n`);
await Bun.sleep(warmupS * 1000);
const before = layouts.map((layout) => ({ bytes: writeBytes(layout.pid), stored: layout.count(), at: Date.now() }));
process.stderr.write(`measuring ${minutes} min (load ${load()})\n`);
await Bun.sleep(minutes * 60_000);
const lines = [
  `${gateways * registersPerDevice} registers polled every ${pollS} s, stored every ${storageS} s, ${minutes} min after ${warmupS} s warm-up; load ${load()}`,
];
const perReading: number[] = [];
layouts.forEach((layout, index) => {
  const start = before[index] as { bytes: number; stored: number; at: number };
  const bytes = writeBytes(layout.pid) - start.bytes;
  const stored = layout.count() - start.stored;
  const seconds = (Date.now() - start.at) / 1000;
  const per = bytes / Math.max(1, stored);
  perReading.push(per);
  lines.push(
    `  ${layout.name.padEnd(7)} written ${(bytes / 1e6).toFixed(2)} MB for ${stored} readings stored: ${per.toFixed(1)} B/reading, ${(((bytes / seconds) * 86_400) / 1e6).toFixed(0)} MB/day`,
  );
});
if (perReading.length === 2) {
  lines.push(
    `  ratio ${layouts[0]?.name} / ${layouts[1]?.name}: ${((perReading[0] as number) / (perReading[1] as number)).toFixed(3)}x`,
  );
}
lines.push(`  target <= 100 B/reading (moonshot 20): ${(perReading[0] as number) <= 100 ? "OK" : "MISSED"}`);
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(0);
