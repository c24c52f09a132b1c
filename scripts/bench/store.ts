/**
 * Benchmark of the reading store, in one run:
 *
 * 1. Ingest rate: readings per second through the real ingest path (createIngest:
 *    accept() one batch per device poll, flush() every N poll rounds, a storage
 *    interval of one minute so that every reading is stored) against bare bun:sqlite
 *    prepared inserts of the same rows in the same transactions, each on a fresh store
 *    of the same schema; alternating runs, the best of --repeat kept. Targets: >= 0.5x
 *    of bare and >= 100,000 readings/s. Then ingest as serve runs it (its own
 *    one-second flush timer) with readings offered at a steady rate: does it keep up?
 * 2. Bytes per stored reading on disk at 10 million readings (2,000 registers x
 *    5,000 one-minute readings, written in time order as ingest writes them):
 *    page_count x page_size after a checkpoint, minus the same store empty, divided
 *    by the readings. Target: <= 20 bytes. Explained with dbstat, and compared with
 *    a sample of the same readings in other layouts (raw_value NUMERIC; compressed
 *    hourly blocks per register).
 * 3. Readings page latency at 10 million readings while retention deletes about
 *    1,000,000 of them: the API (createHttpApp) runs in this process, as in `serve`;
 *    a separate client process requests 1000-row pages one after another. Target:
 *    the longest page during the prune < 100 ms. The same without a prune, before it.
 *    Each prune statement is timed (the real retention batches on a timing proxy).
 *
 * Usage: bun scripts/bench/store.ts [--rows 10000000] [--registers 2000]
 *          [--ingest-rows 1000000] [--flush-rounds 1,10] [--sustained-rates 101000,150000] [--repeat 2] [--prune-rows 1000000]
 *          [--seconds 5] [--store DIR] [--parts ingest]
 * Parts 2 and 3 measured the row layout (before the block history) and are kept for the
 * record in docs/benchmarks.md; they refuse to run on the block history.
 * The big store is built once in DIR (default: $TMPDIR/fieldhub-bench-store-<registers>x<per register>)
 * and reused; the prune runs on a copy of it. Ingest stores are fresh every run.
 */
import { Database } from "bun:sqlite";
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createIngest, type Ingest } from "../../src/ingest/ingest.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { PolledValue } from "../../src/lib/polled-value.ts";
import { readingEpochMs, storedSeconds } from "../../src/store/contract/readings.ts";
import { openStore, type Store, storeFileName } from "../../src/store/index.ts";
import { type BatchPruner, pruneInBatches } from "../../src/store/shared/prune-in-batches.ts";
import { openStore as openSqliteStore } from "../../src/store/sqlite/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";
import { startBenchApi } from "./api-server.ts";
import {
  createSource as createPlantSource,
  devicesPerGateway,
  intervalMs,
  plantInventory,
  registersPerDevice,
} from "./plant.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2),
  options: {
    rows: { type: "string" },
    registers: { type: "string" },
    "ingest-rows": { type: "string" },
    "flush-rounds": { type: "string" },
    "sustained-rates": { type: "string" },
    repeat: { type: "string" },
    "prune-rows": { type: "string" },
    seconds: { type: "string" },
    store: { type: "string" },
    parts: { type: "string" },
  },
});
const registerCount = Math.max(registersPerDevice, Number(args.registers ?? 2000));
if (registerCount % registersPerDevice !== 0)
  throw new Error(`--registers must be a multiple of ${registersPerDevice}`);
const deviceCount = registerCount / registersPerDevice;
const gatewayCount = Math.ceil(deviceCount / devicesPerGateway);
const totalRows = Number(args.rows ?? 10_000_000);
const perRegister = Math.ceil(totalRows / registerCount);
const ingestMinutes = Math.max(1, Math.round(Number(args["ingest-rows"] ?? 1_000_000) / registerCount));
const flushRoundsList = (args["flush-rounds"] ?? "1,10").split(",").map(Number);
const sustainedRates = (args["sustained-rates"] ?? "101000,150000").split(",").map(Number);
const repeat = Math.max(1, Number(args.repeat ?? 2));
const pruneMinutes = Math.min(perRegister - 1, Math.round(Number(args["prune-rows"] ?? 1_000_000) / registerCount));
const baselineSeconds = Number(args.seconds ?? 5);
const parts = new Set((args.parts ?? "ingest").split(","));
if (parts.has("size") || parts.has("prune")) {
  // Their store is written as rows with SQL; since the block history, readings are in blocks
  // (bytes at rest: store-vs-influxdb.ts; the 10M-reading upgrade: history-upgrade.ts).
  throw new Error("--parts size and prune measure the row layout the block history replaced; run --parts ingest");
}
const storeDir = args.store ?? join(tmpdir(), `fieldhub-bench-store-${registerCount}x${perRegister}`);
const scratch = join(tmpdir(), `fieldhub-bench-store-scratch-${process.pid}`);

const hourMs = 3_600_000;
const end = Date.UTC(2026, 0, 1);
const start = end - perRegister * intervalMs;
const progress = (text: string) => process.stderr.write(`${text}\n`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const verdict = (ok: boolean) => (ok ? "OK" : "MISSED");

const inventory = plantInventory(registerCount);
const createSource = (seed: number) => createPlantSource(seed, registerCount, start);

type RegisterRef = { id: number; uuid: string };
/** The store's registers by benchmark index (register `r<index>`). */
function registerRefs(store: Store): RegisterRef[] {
  const refs: RegisterRef[] = [];
  for (const row of sqliteOf(store)
    .query<{ id: number; uuid: string; name: string }, []>("SELECT id, uuid, name FROM registers")
    .all()) {
    refs[Number(row.name.slice(1))] = { id: row.id, uuid: row.uuid };
  }
  if (refs.length !== registerCount) throw new Error("store registers do not match the benchmark's");
  return refs;
}

async function freshStore(dir: string): Promise<Store> {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, storeFileName + suffix), { force: true });
  const store = openStore(dir);
  await store.inventory.sync(inventory, end);
  return store;
}

function storeBytes(store: Store): {
  bytes: number;
  fileBytes: number;
  pageSize: number;
  pages: number;
  freePages: number;
} {
  sqliteOf(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const pageSize = sqliteOf(store).query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 0;
  const pages = sqliteOf(store).query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  const freePages =
    sqliteOf(store).query<{ freelist_count: number }, []>("PRAGMA freelist_count").get()?.freelist_count ?? 0;
  return { bytes: pages * pageSize, fileBytes: statSync(store.path).size, pageSize, pages, freePages };
}

/** Readings held: the bare baseline's row table when there is one, else the block history (tail and blocks). */
const countReadings = (store: Store) =>
  sqliteOf(store).query("SELECT 1 FROM sqlite_master WHERE name = 'readings'").get() !== null
    ? (sqliteOf(store).query<{ n: number }, []>("SELECT count(*) AS n FROM readings").get()?.n ?? 0)
    : (sqliteOf(store)
        .query<{ n: number }, []>(
          "SELECT (SELECT count(*) FROM history_tail) + (SELECT coalesce(sum(count), 0) FROM history_blocks) AS n",
        )
        .get()?.n ?? 0);

const sortedCopy = (list: number[]) => Float64Array.from(list).sort();
const quantile = (sorted: Float64Array, q: number) =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] as number);

const out = (line: string) => process.stdout.write(`${line}\n`);

// --- 1. ingest rate -----------------------------------------------------------------
async function ingestBenchmark(): Promise<void> {
  const readings = ingestMinutes * registerCount;
  progress(`ingest: generating ${fmt(readings)} readings (${registerCount} registers x ${ingestMinutes} minutes)`);
  const source = createSource(1);
  const ts = new Float64Array(deviceCount);
  const values = new Float64Array(registerCount);
  // Register ids of a fresh store are the same every time (synced in config order).
  const probe = await freshStore(join(scratch, "probe"));
  const refs = registerRefs(probe);
  await probe.close();
  const batches: PolledValue[][] = [];
  const bareIds = new Int32Array(readings);
  const bareTs = new Float64Array(readings);
  const bareRaw = new Float64Array(readings);
  let row = 0;
  for (let minute = 0; minute < ingestMinutes; minute++) {
    source.round(minute, ts, values);
    for (let device = 0; device < deviceCount; device++) {
      const batch: PolledValue[] = [];
      for (let offset = 0; offset < registersPerDevice; offset++) {
        const index = device * registersPerDevice + offset;
        const ref = refs[index] as RegisterRef;
        const raw = values[index] as number;
        batch.push({ registerId: ref.uuid, ts: ts[device] as number, raw });
        bareIds[row] = ref.id;
        bareTs[row] = ts[device] as number;
        bareRaw[row] = raw;
        row++;
      }
      batches.push(batch);
    }
  }
  const storageIntervals = new Map(refs.map((ref) => [ref.uuid, intervalMs]));

  /** A fresh store with ingest on it, as `serve` creates it. */
  async function freshIngest() {
    const store = await freshStore(join(scratch, "ingest"));
    return {
      store,
      ingest: await createIngest({
        store,
        clock: systemClock,
        logger: silentLogger(),
        storageIntervalMs: storageIntervals,
      }),
    };
  }

  /** Stops ingest and checks that every reading was committed and is in the store. */
  async function stopAndCheck(store: Store, ingest: Ingest, what: string): Promise<void> {
    await ingest.stop();
    const stats = ingest.stats();
    const stored = countReadings(store);
    await store.close();
    if (stats.committed !== readings || stored !== readings || stats.dropped > 0) {
      throw new Error(
        `${what} stored ${stored} (committed ${stats.committed}, dropped ${stats.dropped}) of ${readings}`,
      );
    }
  }

  async function runIngest(flushRounds: number): Promise<number> {
    const { store, ingest } = await freshIngest();
    const began = performance.now();
    for (let minute = 0; minute < ingestMinutes; minute++) {
      for (let device = 0; device < deviceCount; device++) {
        ingest.accept(batches[minute * deviceCount + device] as PolledValue[]);
      }
      if ((minute + 1) % flushRounds === 0) await ingest.flush();
    }
    await ingest.flush();
    const seconds = (performance.now() - began) / 1000;
    await stopAndCheck(store, ingest, "ingest");
    return readings / seconds;
  }

  /**
   * Ingest as `serve` runs it: its own one-second flush timer, and poll batches
   * offered at a steady rate (paced every 10 ms). Keeps up when every reading is
   * committed within about a flush of the last one offered; the lag is the age of
   * the oldest waiting reading, sampled every 10 ms.
   */
  async function runSustained(offeredPerSecond: number) {
    const { store, ingest } = await freshIngest();
    const tickMs = 10;
    const batchesPerTick = Math.max(1, Math.round((offeredPerSecond * tickMs) / 1000 / registersPerDevice));
    let maxLagMs = 0;
    let longestTransactionMs = 0;
    const began = performance.now();
    for (let next = 0; next < batches.length; next += batchesPerTick) {
      const due = began + (next / batchesPerTick) * tickMs;
      const wait = due - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      for (const batch of batches.slice(next, next + batchesPerTick)) ingest.accept(batch);
      maxLagMs = Math.max(maxLagMs, ingest.stats().lagMs);
      longestTransactionMs = Math.max(longestTransactionMs, ingest.stats().lastBatchMs);
    }
    const offeredSeconds = (performance.now() - began) / 1000;
    while (ingest.stats().committed < readings && performance.now() - began < 120_000) {
      await Bun.sleep(tickMs);
      maxLagMs = Math.max(maxLagMs, ingest.stats().lagMs);
      longestTransactionMs = Math.max(longestTransactionMs, ingest.stats().lastBatchMs);
    }
    const seconds = (performance.now() - began) / 1000;
    await stopAndCheck(store, ingest, "sustained ingest");
    return {
      offered: readings / offeredSeconds,
      committed: readings / seconds,
      maxLagMs,
      longestTransactionMs,
      batches: ingest.stats().batches,
      drainSeconds: seconds - offeredSeconds,
    };
  }

  async function runBare(flushRounds: number): Promise<number> {
    const store = await freshStore(join(scratch, "bare"));
    // The baseline is the row layout fieldhub had before the block history (migration 0006's table).
    sqliteOf(store).exec(`CREATE TABLE readings (register_id integer NOT NULL, ts_s integer NOT NULL, raw_value real,
      PRIMARY KEY (register_id, ts_s)) WITHOUT ROWID`);
    const insert = sqliteOf(store).prepare<never, [number, number, number]>(
      "INSERT INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
    );
    const write = sqliteOf(store).transaction((from: number, to: number) => {
      for (let index = from; index < to; index++) {
        insert.run(bareIds[index] as number, storedSeconds(bareTs[index] as number), bareRaw[index] as number);
      }
    });
    const began = performance.now();
    for (let minute = 0; minute < ingestMinutes; minute += flushRounds) {
      write(minute * registerCount, Math.min(ingestMinutes, minute + flushRounds) * registerCount);
    }
    const seconds = (performance.now() - began) / 1000;
    const stored = countReadings(store);
    if (stored !== readings) throw new Error(`bare stored ${stored} of ${readings}`);
    await store.close();
    return readings / seconds;
  }

  out(
    `1. ingest: ${fmt(readings)} readings into a fresh store, ${registerCount} registers (${deviceCount} devices, one accept() of ${registersPerDevice} per device poll), one reading per register per minute, all stored`,
  );
  for (const flushRounds of flushRoundsList) {
    // Alternating runs, the best of each kept: other work on the machine only ever slows a run down.
    const bareRuns: number[] = [];
    const ingestRuns: number[] = [];
    for (let run = 0; run < repeat; run++) {
      bareRuns.push(await runBare(flushRounds));
      ingestRuns.push(await runIngest(flushRounds));
    }
    const bare = Math.max(...bareRuns);
    const ingest = Math.max(...ingestRuns);
    const runs = (list: number[]) => (repeat > 1 ? ` (best of ${list.map((rate) => fmt(rate)).join(", ")})` : "");
    const ratio = ingest / bare;
    out(
      `   flush every ${flushRounds} poll round${flushRounds === 1 ? "" : "s"} (${fmt(flushRounds * registerCount)} readings per transaction):`,
    );
    out(
      `     bare bun:sqlite prepared INSERTs, same rows, same transactions: ${fmt(bare)} readings/s${runs(bareRuns)}`,
    );
    out(`     createIngest accept() + flush(): ${fmt(ingest)} readings/s${runs(ingestRuns)}`);
    out(`     ratio ingest / bare: ${ratio.toFixed(2)}x (target >= 0.5x) ${verdict(ratio >= 0.5)}`);
    out(`     ingest rate (target >= 100,000 readings/s) ${verdict(ingest >= 100_000)}`);
  }
  for (const offeredPerSecond of sustainedRates) {
    const run = await runSustained(offeredPerSecond);
    out(
      `   as serve runs it (its own 1 s flush timer), ${fmt(offeredPerSecond)} readings/s offered in poll batches every 10 ms:`,
    );
    out(
      `     offered ${fmt(run.offered)}/s; all ${fmt(readings)} committed ${run.drainSeconds.toFixed(2)} s after the last was offered (${fmt(run.committed)}/s overall), in ${run.batches} transactions, the longest seen ${fmt(run.longestTransactionMs)} ms; oldest waiting reading at most ${(run.maxLagMs / 1000).toFixed(2)} s old`,
    );
    // Keeping up: nothing waits much longer than the one-second flush, during the run or after it.
    const keptUp = run.maxLagMs < 2_500 && run.drainSeconds < 2.5;
    out(
      `     keeps up: ${keptUp ? "yes" : "no, the backlog grew"}${run.offered >= 100_000 ? ` (target: keeps up at >= 100,000 readings/s offered) ${verdict(keptUp)}` : ""}`,
    );
  }
  rmSync(join(scratch, "ingest"), { recursive: true, force: true });
  rmSync(join(scratch, "bare"), { recursive: true, force: true });
}

// --- the big store ----------------------------------------------------------------------
/** Builds (once) the store of registerCount x perRegister readings, written in time order. */
async function ensureBigStore(): Promise<void> {
  const marker = join(storeDir, "built.json");
  if (existsSync(marker)) return;
  progress(`building ${fmt(registerCount * perRegister)} readings in ${storeDir} (once; reused by later runs)`);
  const began = performance.now();
  const store = await freshStore(storeDir);
  // Only speeds the build up: the B-tree comes out the same whatever the cache and transaction size.
  sqliteOf(store).exec("PRAGMA cache_size = -262144");
  const refs = registerRefs(store);
  const source = createSource(2);
  const ts = new Float64Array(deviceCount);
  const values = new Float64Array(registerCount);
  const insert = sqliteOf(store).prepare<never, [number, number, number]>(
    "INSERT INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
  );
  // The same rows in the same order as ingest stores them: minute by minute, device by device.
  const writeMinutes = sqliteOf(store).transaction((from: number, to: number) => {
    for (let minute = from; minute < to; minute++) {
      source.round(minute, ts, values);
      for (let index = 0; index < registerCount; index++) {
        const ref = refs[index] as RegisterRef;
        insert.run(
          ref.id,
          storedSeconds(ts[Math.floor(index / registersPerDevice)] as number),
          values[index] as number,
        );
      }
    }
  });
  for (let minute = 0; minute < perRegister; minute += 60) writeMinutes(minute, Math.min(perRegister, minute + 60));
  sqliteOf(store).run(
    `UPDATE registers SET latest_raw_value = (SELECT raw_value FROM readings WHERE register_id = registers.id ORDER BY ts_s DESC LIMIT 1), latest_ts = (SELECT max(ts_s) * 1000 + ${readingEpochMs} FROM readings WHERE register_id = registers.id)`,
  );
  sqliteOf(store).exec("PRAGMA wal_checkpoint(TRUNCATE)");
  await store.close();
  const seconds = (performance.now() - began) / 1000;
  writeFileSync(marker, JSON.stringify({ readings: registerCount * perRegister, seconds }));
  progress(`built in ${seconds.toFixed(1)} s`);
}

// --- 2. bytes per reading -------------------------------------------------------------
async function sizeBenchmark(): Promise<void> {
  const store = openStore(storeDir);
  const rows = countReadings(store);
  const full = storeBytes(store);
  const empty = await freshStore(join(scratch, "empty"));
  const emptyBytes = storeBytes(empty).bytes;
  await empty.close();
  const perReading = (full.bytes - emptyBytes) / rows;
  out(
    `2. bytes per stored reading: ${fmt(rows)} readings (${registerCount} registers x ${fmt(perRegister)} one-minute readings, written in time order)`,
  );
  out(
    `   file ${fmt(full.fileBytes / 1e6, 1)} MB after a checkpoint (${fmt(full.pages)} pages of ${full.pageSize} B, ${full.freePages} free), empty store ${fmt(emptyBytes / 1e3, 1)} kB`,
  );
  out(`   ${perReading.toFixed(2)} bytes per reading (target <= 20) ${verdict(perReading <= 20)}`);

  type Stat = {
    name: string;
    pagetype: string;
    pages: number;
    bytes: number;
    payload: number;
    unused: number;
    cells: number;
  };
  const stats = sqliteOf(store)
    .query<Stat, []>(
      `SELECT name, pagetype, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload, sum(unused) AS unused,
              sum(ncell) AS cells FROM dbstat GROUP BY name, pagetype ORDER BY bytes DESC`,
    )
    .all();
  const readingPages = stats.filter((stat) => stat.name === "readings");
  const leaf = readingPages.find((stat) => stat.pagetype === "leaf");
  const interior = readingPages.filter((stat) => stat.pagetype !== "leaf");
  const others = stats.filter((stat) => stat.name !== "readings").reduce((sum, stat) => sum + stat.bytes, 0);
  out(
    "   dbstat (SELECT name, SUM(pgsize) FROM dbstat GROUP BY name): the readings table is its own (and only) index:",
  );
  if (leaf !== undefined) {
    const overhead = leaf.bytes - leaf.payload - leaf.unused;
    out(
      `     readings leaf pages: ${fmt(leaf.pages)} (${fmt(leaf.bytes / 1e6, 1)} MB) = ${(leaf.bytes / rows).toFixed(2)} B/reading: records ${(leaf.payload / rows).toFixed(2)} + cell pointers, lengths and page headers ${(overhead / rows).toFixed(2)} + unused space ${(leaf.unused / rows).toFixed(2)} (pages ${((1 - leaf.unused / leaf.bytes) * 100).toFixed(0)}% full)`,
    );
  }
  const interiorBytes = interior.reduce((sum, stat) => sum + stat.bytes, 0);
  out(
    `     readings interior pages: ${fmt(interior.reduce((sum, stat) => sum + stat.pages, 0))} = ${(interiorBytes / rows).toFixed(2)} B/reading (they hold the dividing readings themselves); all other tables and indexes: ${fmt(others / 1e3, 1)} kB`,
  );
  // What each part of a record takes. raw_value has NUMERIC affinity (migration
  // 0003): whole numbers are stored as 0- to 6-byte integers, the rest as 8-byte
  // doubles (a REAL column in a WITHOUT ROWID table would store every value as 8).
  const record = sqliteOf(store)
    .query<{ id: number; ts: number; asInteger: number; integral: number }, []>(
      `SELECT avg(CASE WHEN register_id IN (0, 1) THEN 0 WHEN register_id < 128 THEN 1 WHEN register_id < 32768 THEN 2 ELSE 3 END) AS id,
              avg(CASE WHEN ts_s BETWEEN -2147483648 AND 2147483647 THEN 4 ELSE 6 END) AS ts,
              avg(CASE WHEN raw_value IS NULL THEN 0
                       WHEN raw_value <> CAST(raw_value AS INTEGER) OR abs(raw_value) > 9e15 THEN 8
                       WHEN raw_value IN (0, 1) THEN 0
                       WHEN raw_value BETWEEN -128 AND 127 THEN 1
                       WHEN raw_value BETWEEN -32768 AND 32767 THEN 2
                       WHEN raw_value BETWEEN -8388608 AND 8388607 THEN 3
                       WHEN raw_value BETWEEN -2147483648 AND 2147483647 THEN 4
                       ELSE 6 END) AS asInteger,
              avg(raw_value = CAST(raw_value AS INTEGER)) AS integral
         FROM readings`,
    )
    .get();
  if (record !== null) {
    out(
      `     a record: header 4 + register_id ${record.id.toFixed(2)} + ts ${record.ts.toFixed(0)} + raw_value ${record.asInteger.toFixed(2)} = ${(4 + record.id + record.ts + record.asInteger).toFixed(2)} B (${(record.integral * 100).toFixed(0)}% of the values are whole numbers, stored as integers; the others as 8-byte doubles)`,
    );
  }
  const packed = leaf === undefined ? 0 : (leaf.bytes - leaf.unused + interiorBytes) / rows;
  out(`     with every leaf page full (as VACUUM leaves them): ${packed.toFixed(2)} B/reading`);
  const sample = sampleLayouts(store);
  out(
    `   other layouts, measured on ${fmt(sample.readings)} of these readings (every 7th register) written in time order into a scratch database:`,
  );
  out(`     WITHOUT ROWID, Unix ms, raw_value REAL (before migration 0003): ${sample.real.toFixed(2)} B/reading`);
  out(
    `     the same with raw_value NUMERIC (integral values stored as integers; before 0006): ${sample.numeric.toFixed(2)} B/reading`,
  );
  out(
    `     the same with time in seconds since 2020 (4-byte integers; as now): ${sample.seconds.toFixed(2)} B/reading`,
  );
  out(
    `     one row per register and hour, delta/XOR varints, deflated when smaller (lossless, round trip checked): ${sample.blocks.toFixed(2)} B/reading`,
  );
  await store.close();
}

// Hourly blocks: [count][first ts - hour][ts deltas - 60 s, zigzag varints][kind][values].
function pushVarint(bytes: number[], value: number): void {
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
}
const zigzag = (value: number) => (value < 0 ? -2 * value - 1 : 2 * value);
const unzigzag = (value: number) => (value % 2 === 1 ? -(value + 1) / 2 : value / 2);
const float32Bits = (value: number) => new Uint32Array(Float32Array.of(value).buffer)[0] as number;
const bitsFloat32 = (bits: number) => new Float32Array(Uint32Array.of(bits).buffer)[0] as number;

function encodeBlock(hourStart: number, ts: number[], raw: (number | null)[]): Uint8Array {
  const bytes: number[] = [];
  pushVarint(bytes, ts.length);
  pushVarint(bytes, (ts[0] as number) - hourStart);
  for (let index = 1; index < ts.length; index++) {
    pushVarint(bytes, zigzag((ts[index] as number) - (ts[index - 1] as number) - intervalMs));
  }
  const present = raw.every((value) => value !== null);
  const values = raw as number[];
  if (present && values.every((value) => Number.isSafeInteger(value) && Math.abs(value) < 2 ** 50)) {
    bytes.push(0); // integers: zigzag varint of the difference to the previous value
    let previous = 0;
    for (const value of values) {
      pushVarint(bytes, zigzag(value - previous));
      previous = value;
    }
  } else if (present && values.every((value) => Math.fround(value) === value)) {
    bytes.push(1); // float32: varint of the XOR with the previous value's bits
    let previous = 0;
    for (const value of values) {
      const bits = float32Bits(value);
      pushVarint(bytes, (bits ^ previous) >>> 0);
      previous = bits;
    }
  } else {
    bytes.push(2); // anything else: a null flag byte and a float64 each
    for (const value of raw) {
      bytes.push(value === null ? 1 : 0);
      if (value !== null) bytes.push(...new Uint8Array(Float64Array.of(value).buffer));
    }
  }
  const plain = Uint8Array.from(bytes);
  const deflated = Bun.deflateSync(plain);
  if (deflated.length + 1 >= plain.length + 1) return Uint8Array.of(0, ...plain);
  return Uint8Array.of(1, ...deflated);
}

function decodeBlock(hourStart: number, block: Uint8Array): { ts: number[]; raw: (number | null)[] } {
  const bytes = block[0] === 1 ? Bun.inflateSync(block.slice(1)) : block.subarray(1);
  let at = 0;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  const count = varint();
  const ts = [hourStart + varint()];
  for (let index = 1; index < count; index++) ts.push((ts[index - 1] as number) + intervalMs + unzigzag(varint()));
  const kind = bytes[at++];
  const raw: (number | null)[] = [];
  let previous = 0;
  for (let index = 0; index < count; index++) {
    if (kind === 0) {
      previous += unzigzag(varint());
      raw.push(previous);
    } else if (kind === 1) {
      previous = (varint() ^ previous) >>> 0;
      raw.push(bitsFloat32(previous));
    } else {
      const isNull = bytes[at++] === 1;
      if (isNull) raw.push(null);
      else {
        raw.push(new Float64Array(bytes.slice(at, at + 8).buffer)[0] as number);
        at += 8;
      }
    }
  }
  return { ts, raw };
}

/** Bytes per reading of other layouts, each a scratch database filled in time order (as ingest writes). */
function sampleLayouts(store: Store): {
  readings: number;
  real: number;
  numeric: number;
  seconds: number;
  blocks: number;
} {
  const refs = registerRefs(store);
  const series = sqliteOf(store).prepare<{ ts: number; raw: number | null }, [number]>(
    `SELECT ts_s * 1000 + ${readingEpochMs} AS ts, raw_value AS raw FROM readings WHERE register_id = ?1 ORDER BY ts_s`,
  );
  const sampled: { id: number; rows: { ts: number; raw: number | null }[] }[] = [];
  let readings = 0;
  let longest = 0;
  for (let index = 0; index < registerCount; index += 7) {
    const ref = refs[index] as RegisterRef;
    const rows = series.all(ref.id);
    sampled.push({ id: ref.id, rows });
    readings += rows.length;
    longest = Math.max(longest, rows.length);
  }

  const blocks: { hour: number; id: number; data: Uint8Array }[] = [];
  for (const { id, rows } of sampled) {
    for (let from = 0; from < rows.length; ) {
      const hour = Math.floor((rows[from]?.ts as number) / hourMs);
      let to = from;
      while (to < rows.length && Math.floor((rows[to]?.ts as number) / hourMs) === hour) to++;
      const slice = rows.slice(from, to);
      const ts = slice.map((row) => row.ts);
      const raw = slice.map((row) => row.raw);
      const data = encodeBlock(hour * hourMs, ts, raw);
      const back = decodeBlock(hour * hourMs, data);
      if (back.ts.some((value, at) => value !== ts[at]) || back.raw.some((value, at) => !Object.is(value, raw[at]))) {
        throw new Error(`block codec does not round-trip (register ${id}, hour ${hour})`);
      }
      blocks.push({ hour, id, data });
      from = to;
    }
  }
  // Closed hours are written as they close: hour by hour, every register.
  blocks.sort((a, b) => a.hour - b.hour || a.id - b.id);

  const rowsInTimeOrder = (write: (id: number, ts: number, raw: number | null) => void) => {
    for (let at = 0; at < longest; at++) {
      for (const { id, rows } of sampled) {
        const row = rows[at];
        if (row !== undefined) write(id, row.ts, row.raw);
      }
    }
  };
  const real = scratchBytes(
    "CREATE TABLE t (register_id INTEGER NOT NULL, ts INTEGER NOT NULL, raw_value REAL, PRIMARY KEY (register_id, ts)) WITHOUT ROWID",
    rowsInTimeOrder,
  );
  const numeric = scratchBytes(
    "CREATE TABLE t (register_id INTEGER NOT NULL, ts INTEGER NOT NULL, raw_value NUMERIC, PRIMARY KEY (register_id, ts)) WITHOUT ROWID",
    rowsInTimeOrder,
  );
  const seconds = scratchBytes(
    "CREATE TABLE t (register_id INTEGER NOT NULL, ts_s INTEGER NOT NULL, raw_value NUMERIC, PRIMARY KEY (register_id, ts_s)) WITHOUT ROWID",
    (write) => rowsInTimeOrder((id, ts, raw) => write(id, storedSeconds(ts), raw)),
  );
  const blocked = scratchBytes(
    "CREATE TABLE t (register_id INTEGER NOT NULL, hour INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (register_id, hour)) WITHOUT ROWID",
    (write) => {
      for (const block of blocks) write(block.id, block.hour, block.data);
    },
  );
  return {
    readings,
    real: real / readings,
    numeric: numeric / readings,
    seconds: seconds / readings,
    blocks: blocked / readings,
  };
}

type Write = (a: number, b: number, c: number | null | Uint8Array) => void;
/** Bytes a table takes once filled: its pages after the fill minus before. */
function scratchBytes(create: string, fill: (write: Write) => void): number {
  mkdirSync(scratch, { recursive: true });
  const path = join(scratch, "layout.db");
  rmSync(path, { force: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA cache_size = -262144");
  db.exec(create);
  const pages = () => db.query<{ page_count: number }, []>("PRAGMA page_count").get()?.page_count ?? 0;
  const pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
  const before = pages();
  const insert = db.prepare<never, [number, number, number | null | Uint8Array]>("INSERT INTO t VALUES (?1, ?2, ?3)");
  db.transaction(() => fill((a, b, c) => insert.run(a, b, c)))();
  const bytes = (pages() - before) * pageSize;
  db.close();
  rmSync(path, { force: true });
  return bytes;
}

/**
 * The store's reading operations with every call timed: the real retention batches,
 * with the time each of its store operations (one or two statements each) held
 * the event loop.
 */
function timedReadings(readings: BatchPruner, record: (operation: string, ms: number) => void): BatchPruner {
  return new Proxy(readings, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...params: unknown[]) => {
        const began = performance.now();
        try {
          return value.apply(target, params);
        } finally {
          record(String(property), performance.now() - began);
        }
      };
    },
  });
}

// --- 3. page latency during a prune ---------------------------------------------------
async function pruneBenchmark(): Promise<void> {
  const workDir = join(scratch, "prune");
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const workFile = join(workDir, storeFileName);
  copyFileSync(join(storeDir, storeFileName), workFile);
  // Write the copy out now: left dirty in the page cache, its ~260 MB would be
  // flushed by the first checkpoint's fsync during the prune (a 130 ms stall that a
  // running appliance, which checkpoints every 1000 pages, never has).
  const copy = openSync(workFile, "r+");
  fsyncSync(copy);
  closeSync(copy);
  // Likewise whatever the earlier parts left for the kernel to write back.
  Bun.spawnSync(["sync"]);
  // The engine's own open: its readings offer the retention batch steps timed here.
  const store = openSqliteStore(workDir);
  const rows = countReadings(store);
  const { app, key, base } = await startBenchApi(store);

  const registers = sqliteOf(store)
    .query<{ uuid: string; gateway: string }, []>(
      "SELECT r.uuid AS uuid, g.uuid AS gateway FROM registers r JOIN gateways g ON g.id = r.gateway_id ORDER BY r.id",
    )
    .all();
  const gateways = [...new Set(registers.map((register) => register.gateway))];
  const cutoff = start + pruneMinutes * intervalMs;
  const iso = (ms: number) => new Date(ms).toISOString();
  const random = seededRandom(3);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
  // A mix of pages: one register or a whole gateway (time-slab merge), newest or oldest
  // first; half of the oldest-first pages start in the history being pruned.
  const urls: string[] = [];
  for (let index = 0; index < 400; index++) {
    const oneRegister = index % 2 === 0;
    const ascending = index % 4 >= 2;
    const register = pick(registers);
    const gateway = oneRegister ? register.gateway : pick(gateways);
    const filter = oneRegister ? `register_id=${register.uuid}&` : "";
    let since: number;
    let until: number;
    if (ascending) {
      const from = index % 8 >= 4 ? start : cutoff;
      const to = index % 8 >= 4 ? cutoff : end - 1100 * intervalMs;
      since = from + Math.floor(random() * (to - from));
      until = Math.min(end, since + 7 * 86_400_000);
    } else {
      until = end - Math.floor(random() * (end - start - 1100 * intervalMs));
      since = Math.max(start, until - 7 * 86_400_000);
    }
    urls.push(
      `${base}/v1/devices/${gateway}/readings?${filter}since=${iso(since)}&until=${iso(until)}&order=${ascending ? "asc" : "desc"}&limit=1000`,
    );
  }
  const urlFile = join(scratch, "urls.txt");
  await Bun.write(urlFile, urls.join("\n"));

  const child = Bun.spawn([process.execPath, join(import.meta.dir, "page-client.ts"), urlFile, key], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const readLine = async (): Promise<string | null> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const chunk = await reader.read();
      if (chunk.done) return buffered.length > 0 ? buffered : null;
      buffered += decoder.decode(chunk.value, { stream: true });
    }
  };
  if ((await readLine()) !== "ready") throw new Error("page client did not start");

  /** The longest time this process's event loop was busy (a 5 ms timer's worst delay). */
  const stallProbe = () => {
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 5);
      last = now;
    }, 5);
    return () => {
      clearInterval(timer);
      return worst;
    };
  };
  const epochNow = () => performance.timeOrigin + performance.now();

  progress(`prune: ${baselineSeconds} s of pages without a prune`);
  let stopProbe = stallProbe();
  const quietFrom = epochNow();
  await Bun.sleep(baselineSeconds * 1000);
  const quietTo = epochNow();
  const quietStall = stopProbe();

  progress(`prune: retention up to ${iso(cutoff)} while pages are requested`);
  stopProbe = stallProbe();
  const pruneFrom = epochNow();
  const statements: { sql: string; ms: number }[] = [];
  const pruned = await pruneInBatches(
    timedReadings(store.readings, (sql, ms) => statements.push({ sql, ms })),
    cutoff,
  );
  const pruneTo = epochNow();
  const pruneStall = stopProbe();
  await Bun.sleep(100);
  child.stdin.end();
  let last: string | null = null;
  for (let line = await readLine(); line !== null; line = await readLine()) last = line;
  await child.exited;
  const result = JSON.parse(last ?? "{}") as { at: number[]; ms: number[]; errors: number };
  if (result.errors > 0) throw new Error(`${result.errors} failed page requests`);
  const quiet: number[] = [];
  const during: number[] = [];
  result.at.forEach((at, index) => {
    const ms = result.ms[index] as number;
    if (at >= quietFrom && at + ms <= quietTo) quiet.push(ms);
    if (at + ms > pruneFrom && at < pruneTo) during.push(ms);
  });
  const remaining = countReadings(store);
  await app.stop(true);
  await store.close();
  rmSync(workDir, { recursive: true, force: true });

  const expected = pruneMinutes * registerCount;
  if (pruned.deleted !== expected || remaining !== rows - expected) {
    throw new Error(`prune deleted ${pruned.deleted} (expected ${expected}), ${remaining} left of ${rows}`);
  }
  const line = (label: string, list: number[], stall: number) => {
    const sorted = sortedCopy(list);
    out(
      `   ${label}: ${fmt(list.length)} pages, median ${quantile(sorted, 0.5).toFixed(2)} ms, p99 ${quantile(sorted, 0.99).toFixed(2)} ms, max ${(sorted[sorted.length - 1] ?? Number.NaN).toFixed(2)} ms; server event loop stalled at most ${stall.toFixed(1)} ms`,
    );
  };
  out(
    `3. readings pages (1000 rows; one register or a whole gateway of ${registerCount / gatewayCount} registers; asc and desc) from a separate client process, store of ${fmt(rows)} readings:`,
  );
  line(`without a prune (${baselineSeconds} s)`, quiet, quietStall);
  line("during the prune", during, pruneStall);
  out(
    `   prune: ${fmt(pruned.deleted)} readings deleted in ${(pruned.ms / 1000).toFixed(2)} s (${fmt(pruned.batches)} batches over ${fmt(pruned.registers)} registers, ${fmt(pruned.deleted / (pruned.ms / 1000))} readings/s)`,
  );
  const slowest = statements.reduce((worst, statement) => (statement.ms > worst.ms ? statement : worst), {
    sql: "",
    ms: 0,
  });
  const slow = statements.filter((statement) => statement.ms > 10);
  out(
    `   prune statements: ${fmt(statements.length)}, median ${quantile(
      sortedCopy(statements.map((statement) => statement.ms)),
      0.5,
    ).toFixed(
      2,
    )} ms; ${slow.length} took over 10 ms (${slow.map((statement) => statement.ms.toFixed(0)).join(", ")} ms: ${[...new Set(slow.map((statement) => statement.sql.split(" ")[0]))].join(", ")}), the longest: ${slowest.ms.toFixed(1)} ms, ${slowest.sql.slice(0, 60)}`,
  );
  const worst = Math.max(...during);
  out(`   longest page during the prune: ${worst.toFixed(1)} ms (target < 100 ms) ${verdict(worst < 100)}`);
}

// --- run ----------------------------------------------------------------------------------
// Other work on a 2-core machine shows in every figure here, the page latencies most.
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(" ");
out(`machine load average at start: ${load()}`);
mkdirSync(scratch, { recursive: true });
try {
  if (parts.has("ingest")) await ingestBenchmark();
  if (parts.has("size") || parts.has("prune")) await ensureBigStore();
  if (parts.has("size")) await sizeBenchmark();
  if (parts.has("prune")) await pruneBenchmark();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
out(`machine load average at end: ${load()}`);
