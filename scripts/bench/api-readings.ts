/**
 * Benchmark of the /v1 read path on a store of 10 million readings.
 *
 * 1. Readings page: median latency of a 1000-row page through HTTP (key lookup,
 *    rate limit, validation, cursor included; the client is a separate process)
 *    against the bare bun:sqlite query plus a straightforward JSON encoding of the
 *    same page (objects, Date#toISOString, JSON.stringify) in this process, in the
 *    same run. Target: <= 1.5x. The bare query reads the one-row-per-reading
 *    layout fieldhub had before the block history (a `readings` table clustered on
 *    (register, second), in bare.db next to the store), so the baseline stays the
 *    same whatever layout the store uses.
 * 2. Registers: GET /devices/{id}/registers throughput against a bare Bun.serve
 *    answering the same query with the same JSON. Target: >= 0.6x.
 *
 * Usage: bun scripts/bench/api-readings.ts [--rows 10000000] [--seconds 5] [--store DIR]
 * The store is built once in DIR (default: $TMPDIR/fieldhub-bench-api) and reused.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseConfig } from "../../src/config/index.ts";
import { presentRegister } from "../../src/http/v1/present.ts";
import { noDeviceHealth } from "../../src/lib/device-health.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import { boundSeconds, type NewReading, readingEpochMs, storedSeconds } from "../../src/store/contract/readings.ts";
import { openStore, storeFileName } from "../../src/store/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { startBenchApi } from "./api-server.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { rows: { type: "string" }, seconds: { type: "string" }, store: { type: "string" } },
});
const totalRows = Number(values.rows ?? 10_000_000);
const loadSeconds = Number(values.seconds ?? 5);
const dataDir = values.store ?? join(tmpdir(), `fieldhub-bench-api-${totalRows}`);
const registerCount = 40;
const intervalMs = 60_000;
const perRegister = Math.ceil(totalRows / registerCount);
const end = Date.UTC(2026, 0, 1);
const start = end - perRegister * intervalMs;

const registersYaml = Array.from(
  { length: registerCount },
  (_, index) =>
    `          - { name: r${index}, address: ${index * 2}, function_code: 3, data_type: ${index % 2 === 0 ? "int16" : "float32"}, unit: "°C", scale_factor: ${index % 2 === 0 ? 0.1 : 1} }`,
).join("\n");
const config = parseConfig(`
organizations: [{ key: bench, name: Bench }]
gateways:
  - serial: BENCH-1
    name: Bench gateway
    bus: { type: tcp }
    devices:
      - name: Device
        slave_id: 1
        host: 127.0.0.1
        registers:
${registersYaml}
`);
if (!config.ok) throw new Error(JSON.stringify(config.problems));

const fresh = !existsSync(join(dataDir, storeFileName)) || !existsSync(join(dataDir, "bare.db"));
const store = openStore(dataDir);
await store.inventory.sync(config.config.inventory, end);
const gatewayUuid = stableUuid("gateway", "BENCH-1");
await store.gateways.setStatus(gatewayUuid, { status: "online", lastSeen: end });
const bare = new Database(join(dataDir, "bare.db"), { create: true, strict: true });
bare.exec("PRAGMA journal_mode = WAL");
if (fresh) {
  const began = performance.now();
  bare.exec(`DROP TABLE IF EXISTS readings;
    CREATE TABLE readings (register_id integer NOT NULL, ts_s integer NOT NULL, raw_value real,
      PRIMARY KEY (register_id, ts_s)) WITHOUT ROWID;`);
  const insert = bare.prepare("INSERT INTO readings (register_id, ts_s, raw_value) VALUES (?, ?, ?)");
  const ids = sqliteOf(store).query<{ id: number }, []>("SELECT id FROM registers ORDER BY id").all();
  const insertRegister = bare.transaction((registerId: number, from: number, to: number) => {
    for (let step = from; step < to; step++)
      insert.run(registerId, storedSeconds(start + step * intervalMs), (step * 7) % 1000);
  });
  // Every period before now is closed first, so the history goes straight into blocks.
  await store.readings.closePeriods(Date.now());
  for (const { id } of ids) {
    for (let from = 0; from < perRegister; from += 500_000)
      insertRegister(id, from, Math.min(perRegister, from + 500_000));
    for (let from = 0; from < perRegister; from += 1440) {
      const batch: NewReading[] = [];
      for (let step = from; step < Math.min(perRegister, from + 1440); step++) {
        batch.push({ registerId: id, ts: start + step * intervalMs, rawValue: (step * 7) % 1000 });
      }
      await store.readings.record(batch);
    }
  }
  process.stderr.write(
    `built ${registerCount * perRegister} readings in ${((performance.now() - began) / 1000).toFixed(1)} s\n`,
  );
}
const rowCount = bare.query<{ n: number }, []>("SELECT count(*) AS n FROM readings").get()?.n ?? 0;
const { app, key, base } = await startBenchApi(store);

// --- 1. readings page ------------------------------------------------------
type RegisterMeta = {
  id: number;
  uuid: string;
  deviceUuid: string;
  name: string;
  unit: string | null;
  scale: number | null;
};
const registerMeta = sqliteOf(store)
  .query<RegisterMeta, []>(
    `SELECT r.id AS id, r.uuid AS uuid, d.uuid AS deviceUuid, r.name AS name, r.unit AS unit, r.scale_factor AS scale
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id ORDER BY r.id`,
  )
  .all();
const bareQuery = bare.prepare<
  { registerId: number; ts: number; rawValue: number | null },
  [number, number, number, number]
>(
  `SELECT register_id AS registerId, ts_s * 1000 + ${readingEpochMs} AS ts, raw_value AS rawValue FROM readings
    WHERE register_id = ?1 AND ts_s >= ?2 AND ts_s < ?3 ORDER BY ts_s DESC LIMIT ?4`,
);
/** The baseline: the same rows, straightforwardly mapped to the spec's Reading objects and JSON-encoded. */
function barePage(register: RegisterMeta, since: number, until: number): string {
  const rows = bareQuery.all(register.id, boundSeconds(since), boundSeconds(until), 1001);
  const page = rows.slice(0, 1000).map((row) => ({
    register_id: register.uuid,
    modbus_device_id: register.deviceUuid,
    name: register.name,
    unit: register.unit,
    value: row.rawValue === null ? null : row.rawValue * (register.scale ?? 1),
    raw_value: row.rawValue,
    ts: new Date(row.ts).toISOString(),
  }));
  return JSON.stringify({
    data: page,
    meta: {
      since: new Date(since).toISOString(),
      until: new Date(until).toISOString(),
      order: "desc",
      limit: 1000,
      has_more: rows.length > 1000,
      next_cursor: null,
    },
  });
}

const dayMs = 86_400_000;
const samples = 300;
const windows = Array.from({ length: samples }, (_, index) => {
  const register = registerMeta[index % registerMeta.length] as RegisterMeta;
  // Windows spread over the whole history, each holding well over 1000 rows.
  const spreadMinutes = Math.max(1, perRegister - 7 * 1440);
  const until = end - ((index * 7919) % spreadMinutes) * intervalMs;
  return { register, since: until - 7 * dayMs, until };
});
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] as number;
const p99 = (values: number[]) => sorted(values)[Math.floor(values.length * 0.99)] as number;

function measureBare(): number[] {
  const times: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const window of windows) {
      const began = performance.now();
      const body = barePage(window.register, window.since, window.until);
      times.push(performance.now() - began);
      if (body.length < 1000) throw new Error("bare page empty");
    }
  }
  return times.slice(samples); // the first round warms caches and the JIT
}

async function measureLatency(urls: string[]): Promise<number[]> {
  const file = join(tmpdir(), `fieldhub-bench-urls-${process.pid}.txt`);
  await Bun.write(file, urls.join("\n"));
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "load-client.ts"), "latency", file, key], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = await new Response(child.stdout).text();
  await child.exited;
  const result = JSON.parse(output) as { ms: number[]; errors: number };
  if (result.errors > 0) throw new Error(`${result.errors} failed page requests`);
  return result.ms;
}

const windowQuery = (window: { since: number; until: number }) =>
  `since=${new Date(window.since).toISOString()}&until=${new Date(window.until).toISOString()}&limit=1000`;
const oneRegisterUrls = windows.map(
  (window) => `${base}/v1/devices/${gatewayUuid}/readings?register_id=${window.register.uuid}&${windowQuery(window)}`,
);
const allRegisterUrls = windows.map((window) => `${base}/v1/devices/${gatewayUuid}/readings?${windowQuery(window)}`);

// --- 2. registers throughput ------------------------------------------------
async function loadTest(url: string, withKey: boolean): Promise<number> {
  const child = Bun.spawn(
    [
      process.execPath,
      join(import.meta.dir, "load-client.ts"),
      "load",
      url,
      String(loadSeconds),
      "16",
      ...(withKey ? [key] : []),
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  const output = await new Response(child.stdout).text();
  await child.exited;
  const result = JSON.parse(output) as { requests: number; errors: number; seconds: number };
  if (result.errors > 0) throw new Error(`${result.errors} failed requests against ${url}`);
  return result.requests / result.seconds;
}

const gatewayId =
  sqliteOf(store).query<{ id: number }, [string]>("SELECT id FROM gateways WHERE uuid = ?").get(gatewayUuid)?.id ?? 0;
const registerByUuid = new Map(registerMeta.map((register) => [register.uuid, register]));
/** The same bare page served by a bare Bun.serve: the like-for-like HTTP baseline. */
const barePageServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  reusePort: false,
  fetch: (request) => {
    const url = new URL(request.url);
    const register = registerByUuid.get(url.searchParams.get("register_id") ?? "");
    if (register === undefined) return new Response("no register", { status: 404 });
    const body = barePage(
      register,
      Date.parse(url.searchParams.get("since") ?? ""),
      Date.parse(url.searchParams.get("until") ?? ""),
    );
    return new Response(body, { headers: { "content-type": "application/json" } });
  },
});
const registers = store.registers;
const bareServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  reusePort: false,
  fetch: async () =>
    new Response(
      JSON.stringify({
        data: (await registers.list(gatewayId)).map((register) =>
          presentRegister(register, noDeviceHealth, Date.now()),
        ),
      }),
      {
        headers: { "content-type": "application/json" },
      },
    ),
});

const bareHttpUrls = windows.map(
  (window) => `http://127.0.0.1:${barePageServer.port}/?register_id=${window.register.uuid}&${windowQuery(window)}`,
);
const pages = {
  bare: measureBare(),
  bareHttp: await measureLatency(bareHttpUrls),
  http: await measureLatency(oneRegisterUrls),
  httpAll: await measureLatency(allRegisterUrls),
};
barePageServer.stop(true);
const bareRate = await loadTest(`http://127.0.0.1:${bareServer.port}/`, false);
const apiRate = await loadTest(`${base}/v1/devices/${gatewayUuid}/registers`, true);
bareServer.stop(true);
await app.stop(true);
await store.close();
bare.close();

const pageRatio = median(pages.http) / median(pages.bare);
const pageHttpRatio = median(pages.http) / median(pages.bareHttp);
const throughputRatio = apiRate / bareRate;
const lines = [
  `store: ${rowCount.toLocaleString("en")} readings, ${registerCount} registers (${dataDir})`,
  `readings page (1000 rows, one register_id, 7-day window), ${samples} pages:`,
  `  bare bun:sqlite query + JSON encoding: median ${median(pages.bare).toFixed(3)} ms, p99 ${p99(pages.bare).toFixed(3)} ms`,
  `  GET /v1/devices/{id}/readings via HTTP (client in its own process): median ${median(pages.http).toFixed(3)} ms, p99 ${p99(pages.http).toFixed(3)} ms`,
  `  bare Bun.serve answering the same bare page, via HTTP: median ${median(pages.bareHttp).toFixed(3)} ms, p99 ${p99(pages.bareHttp).toFixed(3)} ms`,
  `  ratio API via HTTP / bare in process: ${pageRatio.toFixed(2)}x (target <= 1.5x) ${pageRatio <= 1.5 ? "OK" : "MISSED"}`,
  `  ratio API via HTTP / bare via HTTP: ${pageHttpRatio.toFixed(2)}x`,
  `  all ${registerCount} registers (no register_id), 1000 rows: median ${median(pages.httpAll).toFixed(3)} ms, p99 ${p99(pages.httpAll).toFixed(3)} ms`,
  `registers list (${registerCount} registers), 16 connections for ${loadSeconds} s from a separate process:`,
  `  bare Bun.serve, same query and JSON: ${bareRate.toFixed(0)} req/s`,
  `  GET /v1/devices/{id}/registers: ${apiRate.toFixed(0)} req/s`,
  `  ratio API / bare: ${throughputRatio.toFixed(2)}x (target >= 0.6x) ${throughputRatio >= 0.6 ? "OK" : "MISSED"}`,
];
process.stdout.write(`${lines.join("\n")}\n`);
