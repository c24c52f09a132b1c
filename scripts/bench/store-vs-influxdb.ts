/**
 * fieldhub's compressed history blocks against InfluxDB 1.6 on the same readings,
 * in one run:
 *
 * 1. Bytes per stored reading at rest. The store benchmark's plant (plant.ts: same
 *    registers, same seed as its big store, written minute by minute) goes into
 *    fieldhub's block layout (src/store/codec/, src/store/sqlite/history/) with periods closing as the
 *    simulated time passes, once per --periods value; then checkpoint + VACUUM and
 *    the allocated size of the SQLite file (st_blocks x 512) minus that of an empty
 *    store of the same schema, divided by the readings. The same readings go into a
 *    private influxd as line protocol (integer registers as integer field `i`, float
 *    registers as float field `f`, tags gateway, device and register, precision s), full
 *    compaction is forced by a short compact-full-write-cold-duration, and once the
 *    TSM files stop changing their allocated size (st_blocks x 512 of every .tsm
 *    file; the in-memory index leaves no other index files, the WAL is then empty)
 *    is divided by the readings.
 * 2. 1000-point page latency, newest first from a random point: one register, one
 *    device (its 20 registers merged in time order) and one gateway (200 registers).
 *    fieldhub in process (history.page) and over loopback HTTP (a bare Bun.serve
 *    answering the page as JSON); InfluxDB over its HTTP /query (epoch=ms). Alternating passes (--repeat),
 *    each at new random points, so that none finds blocks a pass before decoded.
 * 3. A cursor walk over 366 days of one register against one over 7 days: the cost
 *    of a page must not grow with the window (target 3: within 2x).
 *
 * With --aggregates, each reading also carries its storage period's aggregate (the
 * plant polled every 10 s, stored once a minute: plant.ts createPeriodSampler), and
 * InfluxDB gets the same four fields a point: the value, min, max and mean.
 *
 * InfluxDB: Debian's `influxdb` (1.6), installed with apt-get when `influxd` is
 * missing (as root, with a policy-rc.d that keeps the package from starting its
 * service). It runs as a child process on free loopback ports with its own
 * meta/data/wal directories and a generated config, and is killed at the end; the
 * system service is never used.
 *
 * Usage: bun scripts/bench/store-vs-influxdb.ts [--readings 10000000] [--registers 2000]
 *          [--periods 86400] [--block-readings 240] [--pages 200] [--repeat 3] [--aggregates] [--keep]
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { NewReading } from "../../src/store/contract/readings.ts";
import { openStore, type Store } from "../../src/store/index.ts";
import { openBlockHistory } from "../../src/store/sqlite/history/history.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";
import {
  createPeriodSampler,
  createSource,
  devicesPerGateway,
  intervalMs,
  kindOf,
  registersPerDevice,
} from "./plant.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    readings: { type: "string" },
    registers: { type: "string" },
    periods: { type: "string" },
    "block-readings": { type: "string" },
    pages: { type: "string" },
    repeat: { type: "string" },
    keep: { type: "boolean" },
    aggregates: { type: "boolean" },
  },
});
const withAggregates = args.aggregates === true;
const registerCount = Number(args.registers ?? 2000);
if (registerCount % registersPerDevice !== 0)
  throw new Error(`--registers must be a multiple of ${registersPerDevice}`);
const deviceCount = registerCount / registersPerDevice;
const perRegister = Math.ceil(Number(args.readings ?? 10_000_000) / registerCount);
const readingCount = perRegister * registerCount;
const periods = (args.periods ?? "86400").split(",").map(Number);
const readingsPerBlock = args["block-readings"] === undefined ? undefined : Number(args["block-readings"]);
const pageCount = Number(args.pages ?? 200);
const repeat = Math.max(1, Number(args.repeat ?? 3));
const end = Date.UTC(2026, 0, 1);
const start = end - perRegister * intervalMs;
const work = join(tmpdir(), `fieldhub-bench-influx-${process.pid}`);
const progress = (text: string) => process.stderr.write(`${text}\n`);
const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const allocated = (path: string) => statSync(path).blocks * 512;
const isFloatRegister = (index: number) => [6, 7, 8].includes(kindOf(index));
const registerId = (index: number) => index + 1;

type Aggregate = { rawMin: number; rawMax: number; rawMean: number; samples: number };

/**
 * Calls `each` for every poll round of the plant: device read times (ms), register
 * values, and with --aggregates each reading's period aggregate (else empty).
 */
function forEachMinute(
  each: (minute: number, ts: Float64Array, values: Float64Array, aggregates: Aggregate[]) => void,
): void {
  const source = createSource(2, registerCount, start);
  const sample = createPeriodSampler(3);
  const ts = new Float64Array(deviceCount);
  const values = new Float64Array(registerCount);
  const aggregates: Aggregate[] = [];
  for (let minute = 0; minute < perRegister; minute++) {
    source.round(minute, ts, values);
    if (withAggregates) {
      for (let index = 0; index < registerCount; index++) aggregates[index] = sample(index, values[index] as number);
    }
    each(minute, ts, values, aggregates);
  }
}

function storeAllocated(store: Store): number {
  sqliteOf(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqliteOf(store).exec("VACUUM");
  sqliteOf(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return allocated(store.path);
}

// --- fieldhub --------------------------------------------------------------------------
type Fieldhub = { store: Store; history: ReturnType<typeof openBlockHistory>; dir: string };

async function loadFieldhub(periodSeconds: number): Promise<{ fieldhub: Fieldhub; bytes: number; seconds: number }> {
  const dir = join(work, `fieldhub-${periodSeconds}`);
  const store = openStore(dir);
  const history = openBlockHistory(sqliteOf(store), { periodSeconds, readingsPerBlock });
  const samples = [0, 6, 7, 9].map((index) => ({
    index,
    ts: [] as number[],
    raw: [] as number[],
    aggregate: [] as (Aggregate | null)[],
  }));
  const began = performance.now();
  const pending: Promise<number>[] = [];
  forEachMinute((minute, ts, values, aggregates) => {
    const batch: NewReading[] = new Array(registerCount);
    for (let index = 0; index < registerCount; index++) {
      const at = ts[Math.floor(index / registersPerDevice)] as number;
      batch[index] = {
        registerId: registerId(index),
        ts: at,
        rawValue: values[index] as number,
        aggregate: aggregates[index] ?? null,
      };
    }
    history.record(batch);
    for (const sample of samples) {
      sample.ts.push(Math.floor((ts[Math.floor(sample.index / registersPerDevice)] as number) / 1000) * 1000);
      sample.raw.push(values[sample.index] as number);
      sample.aggregate.push(aggregates[sample.index] ?? null);
    }
    // Periods close as the simulated clock passes their end (plus the default grace).
    if (minute % 60 === 59) pending.push(history.closePeriods(start + (minute + 1) * intervalMs));
  });
  await Promise.all(pending);
  await history.closePeriods(end + 2 * 86_400_000, 0);
  const seconds = (performance.now() - began) / 1000;
  const count = history.count();
  if (count.closed !== readingCount || count.open !== 0) throw new Error(`stored ${JSON.stringify(count)}`);
  for (const sample of samples) {
    const page = history.page({
      registerIds: [registerId(sample.index)],
      since: 0,
      until: end + 1,
      order: "asc",
      limit: perRegister + 1,
      after: null,
    });
    const same =
      page.rows.length === sample.ts.length &&
      page.rows.every(
        (row, at) =>
          row.ts === sample.ts[at] &&
          Object.is(row.rawValue, sample.raw[at]) &&
          Bun.deepEquals(row.aggregate ?? null, sample.aggregate[at]),
      );
    if (!same) throw new Error(`register ${sample.index} does not read back exactly`);
  }
  const emptyStore = openStore(join(work, `empty-${periodSeconds}`));
  const empty = storeAllocated(emptyStore);
  await emptyStore.close();
  const bytes = storeAllocated(store) - empty;
  const tables = sqliteOf(store)
    .query<{ name: string; bytes: number; payload: number }, []>(
      "SELECT name, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat WHERE name LIKE 'history%' GROUP BY name",
    )
    .all();
  const blocks = sqliteOf(store)
    .query<{ n: number; data: number }, []>("SELECT count(*) AS n, sum(length(data)) AS data FROM history_blocks")
    .get();
  out(
    `   period ${fmt(periodSeconds)} s: ${(bytes / readingCount).toFixed(3)} B/reading (file after VACUUM minus an empty store: ${fmt(bytes / 1e6, 1)} MB); ` +
      `${fmt(blocks?.n ?? 0)} blocks, encoded data ${((blocks?.data ?? 0) / readingCount).toFixed(3)} B/reading, ` +
      `history_blocks pages ${((tables.find((t) => t.name === "history_blocks")?.bytes ?? 0) / readingCount).toFixed(3)} B/reading; loaded and closed in ${seconds.toFixed(1)} s`,
  );
  return { fieldhub: { store, history, dir }, bytes, seconds };
}

// --- InfluxDB --------------------------------------------------------------------------
function ensureInfluxd(): string {
  const found = Bun.which("influxd");
  if (found !== null) return found;
  if (process.getuid?.() !== 0)
    throw new Error("influxd is missing: apt-get install influxdb (as root), then run again");
  progress("installing Debian's influxdb with apt-get");
  // Keep the package's maintainer scripts from starting the system service.
  const policy = "/usr/sbin/policy-rc.d";
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, "#!/bin/sh\nexit 101\n", { mode: 0o755 });
  try {
    const install = Bun.spawnSync(["apt-get", "install", "-y", "--no-install-recommends", "influxdb"], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      stdout: "inherit",
      stderr: "inherit",
    });
    if (install.exitCode !== 0) throw new Error("apt-get install influxdb failed");
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  const installed = Bun.which("influxd");
  if (installed === null) throw new Error("influxd still missing after apt-get");
  return installed;
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

type Influx = { url: string; dir: string; stop: () => Promise<void>; version: string };

async function startInflux(): Promise<Influx> {
  const influxd = ensureInfluxd();
  const dir = join(work, "influxdb");
  mkdirSync(dir, { recursive: true });
  const httpPort = freePort();
  const rpcPort = freePort();
  const config = join(dir, "influxdb.conf");
  writeFileSync(
    config,
    `reporting-disabled = true
bind-address = "127.0.0.1:${rpcPort}"
[meta]
  dir = "${join(dir, "meta")}"
[data]
  dir = "${join(dir, "data")}"
  wal-dir = "${join(dir, "wal")}"
  index-version = "inmem"
  query-log-enabled = false
  cache-snapshot-write-cold-duration = "5s"
  compact-full-write-cold-duration = "10s"
[http]
  enabled = true
  bind-address = "127.0.0.1:${httpPort}"
  auth-enabled = false
  log-enabled = false
  max-body-size = 0
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
[subscriber]
  enabled = false
`,
  );
  const child = Bun.spawn([influxd, "run", "-config", config], { stdout: "ignore", stderr: "ignore" });
  // An interrupted benchmark takes its influxd with it.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      child.kill();
      process.exit(130);
    });
  }
  const url = `http://127.0.0.1:${httpPort}`;
  let version = "";
  for (let attempt = 0; ; attempt++) {
    try {
      const ping = await fetch(`${url}/ping`);
      if (ping.status === 204) {
        version = ping.headers.get("x-influxdb-version") ?? "";
        break;
      }
    } catch {}
    if (attempt > 300 || child.exitCode !== null) throw new Error("influxd did not start");
    await Bun.sleep(100);
  }
  return {
    url,
    dir,
    version,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

async function influxQuery(influx: Influx, q: string, method: "GET" | "POST" = "GET"): Promise<unknown> {
  const response = await fetch(`${influx.url}/query?db=bench&epoch=ms&q=${encodeURIComponent(q)}`, { method });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`influx ${q}: ${JSON.stringify(body)}`);
  return body;
}

async function loadInflux(influx: Influx): Promise<number> {
  await influxQuery(influx, "CREATE DATABASE bench", "POST");
  const began = performance.now();
  let lines: string[] = [];
  const posts: Promise<void>[] = [];
  const flush = async (body: string) => {
    const response = await fetch(`${influx.url}/write?db=bench&precision=s`, { method: "POST", body });
    if (response.status !== 204) throw new Error(`influx write: ${response.status} ${await response.text()}`);
  };
  const batches: string[] = [];
  forEachMinute((_minute, ts, values, aggregates) => {
    for (let index = 0; index < registerCount; index++) {
      const device = Math.floor(index / registersPerDevice);
      const seconds = Math.floor((ts[device] as number) / 1000);
      const value = values[index] as number;
      const aggregate = aggregates[index];
      const float = isFloatRegister(index);
      let field = float ? `f=${value}` : `i=${value}i`;
      // The same four fields a point: min and max of the value's type (named by it, as
      // the value is: a field keeps one type per measurement), mean a float.
      if (aggregate !== undefined) {
        field += float
          ? `,f_min=${aggregate.rawMin},f_max=${aggregate.rawMax},mean=${aggregate.rawMean}`
          : `,i_min=${aggregate.rawMin}i,i_max=${aggregate.rawMax}i,mean=${aggregate.rawMean}`;
      }
      const gateway = Math.floor(device / devicesPerGateway);
      lines.push(`reading,gateway=g${gateway},device=d${device},register=r${index} ${field} ${seconds}`);
    }
    if (lines.length >= 50_000) {
      batches.push(lines.join("\n"));
      lines = [];
    }
  });
  if (lines.length > 0) batches.push(lines.join("\n"));
  // Two writes in flight keep influxd busy without queueing the whole load in memory twice.
  for (let at = 0; at < batches.length; at += 2) {
    posts.length = 0;
    for (const body of batches.slice(at, at + 2)) posts.push(flush(body));
    await Promise.all(posts);
  }
  return (performance.now() - began) / 1000;
}

function tsmFiles(dir: string): { path: string; size: number; allocated: number }[] {
  const files: { path: string; size: number; allocated: number }[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".tsm")) {
        const stat = statSync(path);
        files.push({ path, size: stat.size, allocated: stat.blocks * 512 });
      }
    }
  };
  walk(join(dir, "data", "bench"));
  return files;
}

/** Waits until full compaction has left the TSM files unchanged for 40 s (one file a shard). */
async function waitForCompaction(
  influx: Influx,
): Promise<{ files: number; bytes: number; size: number; seconds: number }> {
  const began = performance.now();
  let last = "";
  let stableSince = performance.now();
  for (;;) {
    await Bun.sleep(5000);
    const files = tsmFiles(influx.dir);
    const signature = files.map((file) => `${file.path}:${file.size}`).join("|");
    const shards = new Set(files.map((file) => file.path.slice(0, file.path.lastIndexOf("/"))));
    if (signature !== last) {
      last = signature;
      stableSince = performance.now();
    } else if (performance.now() - stableSince > 40_000 && files.length === shards.size) {
      return {
        files: files.length,
        bytes: files.reduce((sum, file) => sum + file.allocated, 0),
        size: files.reduce((sum, file) => sum + file.size, 0),
        seconds: (performance.now() - began) / 1000,
      };
    }
    if (performance.now() - began > 30 * 60_000) throw new Error("influxd did not finish compacting in 30 minutes");
  }
}

// --- page latency --------------------------------------------------------------------
type PageTarget = { registers: number[]; until: number; field: string; label: string };

/** Random points, new ones every pass, so that no pass finds the blocks an earlier one decoded. */
type PageKind = "register" | "device" | "gateway";
const registersPerGateway = registersPerDevice * devicesPerGateway;

function pageTargets(kind: PageKind, count: number, pass: number): PageTarget[] {
  const random = seededRandom(["register", "device", "gateway"].indexOf(kind) + 41 + 100 * pass);
  const targets: PageTarget[] = [];
  for (let n = 0; n < count; n++) {
    // Newest first from a random point with 1000 rows of the register behind it (when the run is that long).
    const behind = Math.min(1100, perRegister - 1) * intervalMs;
    const until = start + behind + Math.floor(random() * (end - start - behind));
    if (kind === "register") {
      const index = Math.floor(random() * registerCount);
      targets.push({
        registers: [index],
        until,
        field: isFloatRegister(index) ? "f" : "i",
        label: `register='r${index}'`,
      });
    } else if (kind === "device") {
      const device = Math.floor(random() * deviceCount);
      const registers = Array.from({ length: registersPerDevice }, (_, at) => device * registersPerDevice + at);
      targets.push({ registers, until, field: "i, f", label: `device='d${device}'` });
    } else {
      const gateway = Math.floor(random() * Math.floor(registerCount / registersPerGateway));
      const registers = Array.from({ length: registersPerGateway }, (_, at) => gateway * registersPerGateway + at);
      targets.push({ registers, until, field: "i, f", label: `gateway='g${gateway}'` });
    }
  }
  return targets;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] as number;

/** Rows each target's page returned, by the first engine timed: every other engine must return as many. */
const rowsByTarget = new Map<PageTarget, number>();

async function timePages(targets: PageTarget[], page: (target: PageTarget) => Promise<number>): Promise<number[]> {
  for (const target of targets.slice(0, 20)) await page(target); // warm-up
  const ms: number[] = [];
  for (const target of targets) {
    const began = performance.now();
    const rows = await page(target);
    ms.push(performance.now() - began);
    const expected = rowsByTarget.get(target) ?? rows;
    rowsByTarget.set(target, expected);
    if (rows !== expected || rows === 0) throw new Error(`page of ${rows} rows where another engine gave ${expected}`);
  }
  return ms;
}

function fieldhubServer(fieldhub: Fieldhub) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const params = new URL(request.url).searchParams;
      const page = fieldhub.history.page({
        registerIds: (params.get("registers") ?? "").split(",").map(Number),
        since: 0,
        until: Number(params.get("until")),
        order: "desc",
        limit: 1000,
        after: null,
      });
      return Response.json(page);
    },
  });
}

/** Cost per page of walking one register's window by cursor, 7 days against 366. */
async function windowWalk(): Promise<{ week: number; year: number; pagesWeek: number; pagesYear: number }> {
  const store = openStore(join(work, "window"));
  const history = openBlockHistory(sqliteOf(store));
  const yearEnd = end;
  const yearStart = yearEnd - 366 * 86_400_000;
  const random = seededRandom(7);
  let value = 200;
  for (let minute = 0; minute < 366 * 1440; minute += 1440) {
    const batch: NewReading[] = [];
    for (let at = minute; at < minute + 1440; at++) {
      value += random() < 0.15 ? -1 : random() < 0.3 ? 1 : 0;
      batch.push({ registerId: 1, ts: yearStart + at * intervalMs + 500, rawValue: value });
    }
    history.record(batch);
  }
  await history.closePeriods(yearEnd + 86_400_000, 0);
  const walk = (since: number) => {
    let after: { ts: number; registerId: number } | null = null;
    let pages = 0;
    const began = performance.now();
    for (;;) {
      const page = history.page({ registerIds: [1], since, until: yearEnd, order: "asc", limit: 1000, after });
      pages++;
      if (!page.hasMore) break;
      const last = page.rows.at(-1) as { ts: number; registerId: number };
      after = { ts: last.ts, registerId: last.registerId };
    }
    return { perPage: (performance.now() - began) / pages, pages };
  };
  walk(yearStart); // warm-up
  const weeks: number[] = [];
  const years: number[] = [];
  let pagesWeek = 0;
  let pagesYear = 0;
  for (let round = 0; round < 3; round++) {
    const week = walk(yearEnd - 7 * 86_400_000);
    const year = walk(yearStart);
    weeks.push(week.perPage);
    years.push(year.perPage);
    pagesWeek = week.pages;
    pagesYear = year.pages;
  }
  await store.close();
  return { week: median(weeks), year: median(years), pagesWeek, pagesYear };
}

// --- the run ------------------------------------------------------------------------------
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
out(
  `store vs InfluxDB: ${fmt(readingCount)} readings (${registerCount} registers x ${fmt(perRegister)} one-minute readings), loadavg at start ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
let influx: Influx | null = null;
try {
  out("1. bytes per stored reading at rest");
  let fieldhub: Fieldhub | null = null;
  let fieldhubBytes = 0;
  for (const period of periods) {
    const loaded = await loadFieldhub(period);
    if (fieldhub !== null) await fieldhub.store.close();
    fieldhub = loaded.fieldhub;
    fieldhubBytes = loaded.bytes;
  }
  if (fieldhub === null) throw new Error("no --periods");
  influx = await startInflux();
  progress(`influxd ${influx.version} on ${influx.url}; loading`);
  const loadSeconds = await loadInflux(influx);
  progress(`loaded in ${loadSeconds.toFixed(1)} s; waiting for full compaction`);
  const compacted = await waitForCompaction(influx);
  const influxPerReading = compacted.bytes / readingCount;
  const fieldhubPerReading = fieldhubBytes / readingCount;
  out(
    `   InfluxDB ${influx.version}: ${influxPerReading.toFixed(3)} B/reading (${compacted.files} TSM files after full compaction, allocated ${fmt(compacted.bytes / 1e6, 1)} MB, apparent ${fmt(compacted.size / 1e6, 1)} MB; loaded in ${loadSeconds.toFixed(1)} s, compacted ${compacted.seconds.toFixed(0)} s later)`,
  );
  out(
    withAggregates
      ? `   with aggregates (InfluxDB: value, min, max and mean fields): fieldhub (period ${fmt(periods.at(-1) ?? 0)} s) / InfluxDB: ${(fieldhubPerReading / influxPerReading).toFixed(2)}x; target <= 0.9x ${fieldhubPerReading <= 0.9 * influxPerReading ? "OK" : "MISSED"}`
      : `   fieldhub (period ${fmt(periods.at(-1) ?? 0)} s) / InfluxDB: ${(fieldhubPerReading / influxPerReading).toFixed(2)}x; target <= 1.5 B/reading ${fieldhubPerReading <= 1.5 ? "OK" : "MISSED"}, <= InfluxDB ${fieldhubPerReading <= influxPerReading ? "OK" : "MISSED"}`,
  );

  out(
    `2. 1000-point pages, newest first from a random point (${pageCount} pages a pass, ${repeat} passes; median / p95 ms, ranges over passes)`,
  );
  const server = fieldhubServer(fieldhub);
  const history = fieldhub.history;
  const inflx = influx;
  for (const kind of ["register", "device", "gateway"] as const) {
    const results: Record<string, { medians: number[]; p95s: number[] }> = {
      "fieldhub in process": { medians: [], p95s: [] },
      "fieldhub over HTTP": { medians: [], p95s: [] },
      "InfluxDB over HTTP": { medians: [], p95s: [] },
    };
    const record = (name: string, ms: number[]) => {
      results[name]?.medians.push(median(ms));
      results[name]?.p95s.push(p95(ms));
    };
    for (let pass = 0; pass < repeat; pass++) {
      const targets = pageTargets(kind, pageCount, pass);
      record(
        "fieldhub in process",
        await timePages(targets, async (target) => {
          const page = history.page({
            registerIds: target.registers.map(registerId),
            since: 0,
            until: target.until,
            order: "desc",
            limit: 1000,
            after: null,
          });
          return page.rows.length;
        }),
      );
      record(
        "fieldhub over HTTP",
        await timePages(targets, async (target) => {
          const response = await fetch(
            `http://127.0.0.1:${server.port}/?registers=${target.registers.map(registerId).join(",")}&until=${target.until}`,
          );
          const body = (await response.json()) as { rows: unknown[] };
          return body.rows.length;
        }),
      );
      record(
        "InfluxDB over HTTP",
        await timePages(targets, async (target) => {
          const body = (await influxQuery(
            inflx,
            `SELECT ${target.field} FROM reading WHERE ${target.label} AND time < ${target.until}ms ORDER BY time DESC LIMIT 1000`,
          )) as { results: { series?: { values: unknown[] }[] }[] };
          return body.results[0]?.series?.[0]?.values.length ?? 0;
        }),
      );
    }
    const range = (values: number[]) => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}`;
    const what = {
      register: "one register",
      device: `one device (${registersPerDevice} registers)`,
      gateway: `one gateway (${registersPerGateway} registers)`,
    };
    out(`   ${what[kind]}:`);
    for (const [name, result] of Object.entries(results)) {
      out(`     ${name}: median ${range(result.medians)} ms, p95 ${range(result.p95s)} ms`);
    }
    const ours = median(results["fieldhub over HTTP"]?.medians ?? []);
    const theirs = median(results["InfluxDB over HTTP"]?.medians ?? []);
    out(
      `     InfluxDB / fieldhub over HTTP (median of medians): ${(theirs / ours).toFixed(2)}x ${ours < theirs ? "OK" : "MISSED"}`,
    );
  }
  server.stop(true);
  await fieldhub.store.close();

  out("3. one register walked by cursor (1000-row pages, ascending), 366-day window against 7-day");
  const walk = await windowWalk();
  out(
    `   7 days: ${walk.pagesWeek} pages, ${walk.week.toFixed(3)} ms a page; 366 days: ${walk.pagesYear} pages, ${walk.year.toFixed(3)} ms a page; ratio ${(walk.year / walk.week).toFixed(2)} (target <= 2) ${walk.year / walk.week <= 2 ? "OK" : "MISSED"}`,
  );
  out(
    `loadavg at end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  if (influx !== null) await influx.stop();
  if (args.keep !== true) rmSync(work, { recursive: true, force: true });
}
