/**
 * Readings on PostgreSQL (docs/benchmarks.md, "Readings on PostgreSQL"), on a
 * private PostgreSQL the script starts (test/harness/postgres.ts, fsync on):
 *
 *   (a) ingest of forwarded readings: batches of 10,000 rows of 2,000 registers into
 *       fieldhub's PostgreSQL readings store (PgReadingStore.record), then their
 *       compaction into blocks; against a bare COPY (psql \copy, one stream) and a
 *       bare multi-row INSERT (unnest, same batches) of the same rows into a plain
 *       table without key, each into a fresh database in the same run;
 *   (b) a 1000-row page from PostgreSQL against the same page from the SQLite block
 *       store holding the same readings (one register, and one device of 20);
 *   (c) bytes per reading: pg_total_relation_size of the history tables after
 *       VACUUM and CHECKPOINT, against SQLite's history tables (dbstat) after VACUUM.
 *
 *   node_modules/.bin/bun scripts/bench/pg-readings.ts [--days 1] [--registers 2000] [--repeat 3]
 *     [--pages 300] [--batch 10000] [--readings-per-block 480]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type NewReading, type ReadingsPageQuery, storedSeconds } from "../../src/store/contract/readings.ts";
import { openStore } from "../../src/store/index.ts";
import { openPostgresStore } from "../../src/store/postgres/index.ts";
import { openBlockHistory } from "../../src/store/sqlite/history/history.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { startPostgres } from "../../test/harness/postgres.ts";
import { seededRandom } from "../../test/harness/seeded-random.ts";
import { createSource, intervalMs, registersPerDevice } from "./plant.ts";

const { values: options } = parseArgs({
  options: {
    days: { type: "string", default: "1" },
    registers: { type: "string", default: "2000" },
    repeat: { type: "string", default: "3" },
    batch: { type: "string", default: "10000" },
    pages: { type: "string", default: "300" },
    "readings-per-block": { type: "string", default: "480" },
  },
});
const days = Number(options.days);
const registerCount = Number(options.registers);
const repeat = Number(options.repeat);
const batchSize = Number(options.batch);
const pageCount = Number(options.pages);
const readingsPerBlock = Number(options["readings-per-block"]);
const start = Date.UTC(2026, 0, 10);
const minutes = days * 1440;
const readingCount = minutes * registerCount;

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const out = (line: string) => process.stdout.write(`${line}\n`);
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const range = (values: number[], digits = 0) =>
  values.length === 1
    ? fmt(values[0] as number, digits)
    : `${fmt(Math.min(...values), digits)} to ${fmt(Math.max(...values), digits)}`;

// --- the readings, as a site forwards them: minute by minute, every register ----------
out(`load average at start: ${load()}`);
const registerIds = new Int32Array(readingCount);
const times = new Float64Array(readingCount);
const raws = new Float64Array(readingCount);
{
  const source = createSource(7, registerCount, start);
  const ts = new Float64Array(registerCount / registersPerDevice);
  const values = new Float64Array(registerCount);
  let at = 0;
  for (let minute = 0; minute < minutes; minute++) {
    source.round(minute, ts, values);
    for (let index = 0; index < registerCount; index++) {
      registerIds[at] = index + 1;
      times[at] = ts[Math.floor(index / registersPerDevice)] as number;
      raws[at] = values[index] as number;
      at++;
    }
  }
}
out(
  `${fmt(readingCount)} readings: ${fmt(registerCount)} registers x ${fmt(minutes)} minutes (${days} day${days === 1 ? "" : "s"}), batches of ${fmt(batchSize)}; PostgreSQL blocks of at most ${fmt(readingsPerBlock)} readings`,
);

function batchAt(from: number): NewReading[] {
  const to = Math.min(readingCount, from + batchSize);
  const batch: NewReading[] = new Array(to - from);
  for (let at = from; at < to; at++) {
    batch[at - from] = { registerId: registerIds[at] as number, ts: times[at] as number, rawValue: raws[at] as number };
  }
  return batch;
}

const pg = await startPostgres({ sharedBuffers: "256MB", durable: true });
let databaseIndex = 0;
const plainTable =
  "CREATE TABLE plain (register_id integer NOT NULL, ts_s integer NOT NULL, raw_value double precision)";

async function bareCopy(): Promise<number> {
  const url = await pg.database(`copy_${++databaseIndex}`);
  const sql = new Bun.SQL(url, { max: 1 });
  await sql.unsafe(plainTable);
  await sql.close();
  const began = performance.now();
  const psql = spawn("/usr/lib/postgresql/15/bin/psql", [url, "-q", "-c", "\\copy plain FROM STDIN"], {
    stdio: ["pipe", "ignore", "inherit"],
  });
  const done = new Promise<number | null>((resolve) => psql.once("exit", resolve));
  for (let from = 0; from < readingCount; from += batchSize) {
    const lines: string[] = [];
    for (let at = from; at < Math.min(readingCount, from + batchSize); at++) {
      lines.push(`${registerIds[at]}\t${storedSeconds(times[at] as number)}\t${raws[at]}`);
    }
    if (!psql.stdin.write(`${lines.join("\n")}\n`)) await new Promise((resolve) => psql.stdin.once("drain", resolve));
  }
  psql.stdin.end();
  if ((await done) !== 0) throw new Error("psql \\copy failed");
  return readingCount / ((performance.now() - began) / 1000);
}

async function bareInsert(): Promise<number> {
  const url = await pg.database(`insert_${++databaseIndex}`);
  const sql = new Bun.SQL(url, { max: 1 });
  await sql.unsafe(plainTable);
  const began = performance.now();
  for (let from = 0; from < readingCount; from += batchSize) {
    const batch = batchAt(from);
    await sql`INSERT INTO plain SELECT * FROM unnest(${batch.map((r) => r.registerId)}::int[], ${batch.map((r) => storedSeconds(r.ts))}::int[], ${batch.map((r) => r.rawValue)}::float8[])`;
  }
  const rate = readingCount / ((performance.now() - began) / 1000);
  await sql.close();
  return rate;
}

async function fieldhubIngest(keep: boolean) {
  const url = await pg.database(`fieldhub_${++databaseIndex}`);
  const store = await openPostgresStore(url, { readings: { readingsPerBlock } });
  const began = performance.now();
  for (let from = 0; from < readingCount; from += batchSize) await store.readings.record(batchAt(from));
  const recordSeconds = (performance.now() - began) / 1000;
  const probe = new Bun.SQL(url, { max: 1 });
  const [size] = (await probe`SELECT pg_total_relation_size('history_tail')::int8 AS bytes`) as { bytes: string }[];
  await probe.close();
  tailBytes.push(Number(size?.bytes) / readingCount);
  const compactBegan = performance.now();
  await store.readings.closePeriods(start + (days + 1) * 86_400_000);
  const compactSeconds = (performance.now() - compactBegan) / 1000;
  if (!keep) await store.close();
  return {
    url,
    store,
    record: readingCount / recordSeconds,
    compactSeconds,
    totalSeconds: recordSeconds + compactSeconds,
  };
}

// --- (a) ingest ------------------------------------------------------------------------
const rates = {
  copy: [] as number[],
  insert: [] as number[],
  fieldhub: [] as number[],
  compact: [] as number[],
  catchUp: [] as number[],
};
let kept: Awaited<ReturnType<typeof fieldhubIngest>> | null = null;
/** The tail's size per reading while the readings are in it (before compaction). */
const tailBytes: number[] = [];
for (let round = 0; round < repeat; round++) {
  const copy = await bareCopy();
  const insert = await bareInsert();
  const ours = await fieldhubIngest(round === repeat - 1);
  rates.copy.push(copy);
  rates.insert.push(insert);
  rates.fieldhub.push(ours.record);
  rates.compact.push(ours.compactSeconds);
  rates.catchUp.push(ours.totalSeconds);
  out(
    `  round ${round + 1}: bare COPY ${fmt(copy)}/s, bare INSERT ${fmt(insert)}/s, fieldhub record ${fmt(ours.record)}/s (${(ours.record / copy).toFixed(2)}x COPY, ${(ours.record / insert).toFixed(2)}x INSERT); compaction ${ours.compactSeconds.toFixed(1)} s; record + compaction ${ours.totalSeconds.toFixed(1)} s; load ${load()}`,
  );
  if (round === repeat - 1) kept = ours;
}
const ratios = rates.fieldhub.map((rate, index) => rate / (rates.copy[index] as number));
out(
  `(a) ingest: fieldhub ${range(rates.fieldhub)}/s (target >= 200,000: ${Math.min(...rates.fieldhub) >= 200_000 ? "met" : "MISSED"}), bare COPY ${range(rates.copy)}/s, ratio ${range(ratios, 2)}x; bare INSERT ${range(rates.insert)}/s; compaction ${range(rates.compact, 1)} s; one day's catch-up (record + compaction) ${range(rates.catchUp, 1)} s`,
);
const pgStore = (kept as NonNullable<typeof kept>).store;

// --- SQLite block store with the same readings -----------------------------------------
const sqliteDir = mkdtempSync(join(tmpdir(), "fieldhub-bench-pg-sqlite-"));
const sqliteStore = openStore(sqliteDir);
const history = openBlockHistory(sqliteOf(sqliteStore));
for (let from = 0; from < readingCount; from += batchSize) history.record(batchAt(from));
await history.closePeriods(start + (days + 1) * 86_400_000, 0);

// --- (b) pages -------------------------------------------------------------------------
const random = seededRandom(3);
const end = start + minutes * intervalMs;
function queries(kind: "register" | "device"): ReadingsPageQuery[] {
  const list: ReadingsPageQuery[] = [];
  for (let index = 0; index < pageCount; index++) {
    const device = Math.floor(random() * (registerCount / registersPerDevice));
    const ids =
      kind === "register"
        ? [device * registersPerDevice + 1 + Math.floor(random() * registersPerDevice)]
        : Array.from({ length: registersPerDevice }, (_, offset) => device * registersPerDevice + offset + 1);
    const order = random() < 0.5 ? "asc" : "desc";
    const since = start + Math.floor(random() * (minutes - 1000)) * intervalMs * (kind === "register" ? 1 : 0.9);
    list.push({ registerIds: ids, since, until: end, order, limit: 1000, after: null });
  }
  return list;
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
for (const kind of ["register", "device"] as const) {
  const list = queries(kind);
  const pgRatios: number[] = [];
  const pgTimes: number[] = [];
  const sqliteTimes: number[] = [];
  for (let round = 0; round < repeat; round++) {
    const pgEach: number[] = [];
    const sqliteEach: number[] = [];
    for (const query of list) {
      let began = performance.now();
      const ours = await pgStore.readings.page(query);
      pgEach.push(performance.now() - began);
      began = performance.now();
      const theirs = history.page(query);
      sqliteEach.push(performance.now() - began);
      if (ours.rows.length !== theirs.rows.length || ours.rows.at(-1)?.ts !== theirs.rows.at(-1)?.ts)
        throw new Error("the two stores' pages differ");
    }
    pgTimes.push(median(pgEach));
    sqliteTimes.push(median(sqliteEach));
    pgRatios.push(median(pgEach) / median(sqliteEach));
  }
  out(
    `(b) 1000-row page, ${kind === "register" ? "one register" : `one device (${registersPerDevice} registers)`}: PostgreSQL median ${range(pgTimes, 2)} ms, SQLite blocks ${range(sqliteTimes, 2)} ms, ratio ${range(pgRatios, 2)}x (target <= 2x: ${Math.max(...pgRatios) <= 2 ? "met" : "MISSED"})`,
  );
}

// --- (c) bytes per reading -------------------------------------------------------------
{
  const sql = new Bun.SQL(kept?.url as string, { max: 1 });
  await sql`VACUUM ANALYZE`;
  await sql`CHECKPOINT`;
  const [row] = (await sql`
    SELECT (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::int8 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'history_blocks'::regclass) AS blocks,
           pg_total_relation_size('history_tail')::int8 AS tail,
           (SELECT count(*)::int8 FROM history_blocks) AS block_rows,
           (SELECT sum(length(data))::int8 FROM history_blocks) AS data`) as Record<string, string>[];
  await sql.close();
  const blocks = Number(row?.blocks);
  const tail = Number(row?.tail);
  const pgBytes = (blocks + tail) / readingCount;
  sqliteOf(sqliteStore).exec("VACUUM");
  const pages = sqliteOf(sqliteStore)
    .query<{ bytes: number }, []>(
      "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'history%' OR name LIKE 'sqlite_autoindex_history%'",
    )
    .get();
  const sqliteBytes = (pages?.bytes ?? 0) / readingCount;
  out(
    `(c) bytes per reading after compaction, VACUUM and CHECKPOINT: PostgreSQL history_blocks ${(blocks / readingCount).toFixed(3)} (partitions with their key index, ${fmt(blocks)} B; ${fmt(Number(row?.block_rows))} blocks, encoded data ${(Number(row?.data) / readingCount).toFixed(3)} B/reading), SQLite history tables ${sqliteBytes.toFixed(3)}, ratio ${(blocks / readingCount / sqliteBytes).toFixed(2)}x; ` +
      `with the emptied tail's allocation (${fmt(tail)} B, reused by the next period) ${pgBytes.toFixed(3)}. While in the tail, before compaction: ${range(tailBytes, 1)} B/reading`,
  );
}

await pgStore.close();
sqliteStore.close();
rmSync(sqliteDir, { recursive: true, force: true });
await pg.stop();
out(`load average at end: ${load()}`);
