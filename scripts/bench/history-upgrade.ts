/**
 * The start-up conversion of a store written before the block history (one row per reading
 * in `readings`) into block history, timed on the store benchmark's plant: 2,000
 * registers x 5,000 one-minute readings = 10 million (scripts/bench/plant.ts, the
 * same rows in the same order scripts/bench/store.ts wrote them). The legacy store
 * is built once (rows, then the history-upgrade migration marked as not yet run)
 * and copied for each run; the measure is how long `openStore` takes on the copy
 * (migrations, then the conversion), against opening the same store once
 * converted (the same run's baseline), with the store's size before and after.
 *
 * Usage: bun scripts/bench/history-upgrade.ts [--registers 2000] [--per-register 5000] [--repeat 2] [--store DIR]
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { storedSeconds } from "../../src/store/contract/readings.ts";
import { openStore, storeFileName } from "../../src/store/index.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { createSource, intervalMs, plantInventory, registersPerDevice } from "./plant.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    registers: { type: "string" },
    "per-register": { type: "string" },
    repeat: { type: "string" },
    store: { type: "string" },
  },
});
const registerCount = Number(values.registers ?? 2000);
const perRegister = Number(values["per-register"] ?? 5000);
const repeat = Number(values.repeat ?? 2);
const legacyDir = values.store ?? join(tmpdir(), `fieldhub-bench-upgrade-${registerCount}x${perRegister}`);
const workDir = join(tmpdir(), `fieldhub-bench-upgrade-run-${process.pid}`);
const end = Date.UTC(2026, 0, 1);
const start = end - perRegister * intervalMs;
const readings = registerCount * perRegister;
const progress = (text: string) => process.stderr.write(`${text}\n`);

const migrationsDir = join(import.meta.dir, "..", "..", "src", "store", "sqlite", "migrations");
const journal = JSON.parse(readFileSync(join(migrationsDir, "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};
const upgrade = journal.entries.find((entry) => entry.tag.endsWith("_history_upgrade"));
if (upgrade === undefined) throw new Error("journal lacks the history upgrade migration");

async function buildLegacy(): Promise<void> {
  const marker = join(legacyDir, "built.json");
  if (existsSync(marker)) return;
  progress(`building ${readings.toLocaleString("en")} readings in the row layout in ${legacyDir} (once)`);
  const began = performance.now();
  rmSync(legacyDir, { recursive: true, force: true });
  const store = openStore(legacyDir);
  await store.inventory.sync(plantInventory(registerCount), end);
  const db = sqliteOf(store);
  db.exec("PRAGMA cache_size = -262144");
  db.exec(`CREATE TABLE readings (register_id integer NOT NULL, ts_s integer NOT NULL, raw_value numeric,
             PRIMARY KEY (register_id, ts_s)) WITHOUT ROWID`);
  const ids: number[] = [];
  for (const row of db.query<{ id: number; name: string }, []>("SELECT id, name FROM registers").all()) {
    ids[Number(row.name.slice(1))] = row.id;
  }
  const source = createSource(2, registerCount, start);
  const ts = new Float64Array(registerCount / registersPerDevice);
  const raw = new Float64Array(registerCount);
  const insert = db.prepare<never, [number, number, number]>(
    "INSERT INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
  );
  const writeMinutes = db.transaction((from: number, to: number) => {
    for (let minute = from; minute < to; minute++) {
      source.round(minute, ts, raw);
      for (let index = 0; index < registerCount; index++) {
        insert.run(
          ids[index] as number,
          storedSeconds(ts[Math.floor(index / registersPerDevice)] as number),
          raw[index] as number,
        );
      }
    }
  });
  for (let minute = 0; minute < perRegister; minute += 60) writeMinutes(minute, Math.min(perRegister, minute + 60));
  // As the release before the block history left it: the upgrade migration not yet run, no history state.
  db.run("DELETE FROM __drizzle_migrations WHERE created_at >= ?1", [upgrade?.when ?? 0]);
  db.run("DELETE FROM history_state");
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  await store.close();
  writeFileSync(marker, JSON.stringify({ readings }));
  progress(`built in ${((performance.now() - began) / 1000).toFixed(1)} s`);
}

function copyLegacy(): void {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  copyFileSync(join(legacyDir, storeFileName), join(workDir, storeFileName));
}

async function timedOpen(): Promise<{ ms: number; held: number; bytes: number; liveBytes: number }> {
  const began = performance.now();
  const store = openStore(workDir);
  const ms = performance.now() - began;
  const db = sqliteOf(store);
  const held =
    db
      .query<{ n: number }, []>(
        "SELECT (SELECT count(*) FROM history_tail) + (SELECT coalesce(sum(count), 0) FROM history_blocks) AS n",
      )
      .get()?.n ?? 0;
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const page = (name: string) => db.query<Record<string, number>, []>(`PRAGMA ${name}`).get()?.[name] ?? 0;
  const pageSize = page("page_size");
  const liveBytes = (page("page_count") - page("freelist_count")) * pageSize;
  await store.close();
  return { ms, held, bytes: statSync(join(workDir, storeFileName)).size, liveBytes };
}

await buildLegacy();
const legacyBytes = statSync(join(legacyDir, storeFileName)).size;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const runs: { convert: number; reopen: number }[] = [];
let last = { ms: 0, held: 0, bytes: 0, liveBytes: 0 };
for (let run = 0; run < repeat; run++) {
  copyLegacy();
  last = await timedOpen();
  if (last.held !== readings) throw new Error(`converted ${last.held} of ${readings} readings`);
  const reopen = await timedOpen();
  runs.push({ convert: last.ms, reopen: reopen.ms });
  progress(
    `run ${run + 1}: convert ${(last.ms / 1000).toFixed(1)} s, reopen ${reopen.ms.toFixed(0)} ms (load ${load()})`,
  );
}
rmSync(workDir, { recursive: true, force: true });
const converts = runs.map((run) => run.convert / 1000);
const lines = [
  `${readings.toLocaleString("en")} readings (${registerCount} registers x ${perRegister} minutes), load ${load()}`,
  `  row-layout store: ${(legacyBytes / 1e6).toFixed(1)} MB`,
  `  open with conversion: ${Math.min(...converts).toFixed(1)}-${Math.max(...converts).toFixed(1)} s over ${repeat} runs (${(readings / Math.min(...converts) / 1e6).toFixed(2)} million readings/s at best)`,
  `  open once converted (baseline): ${Math.min(...runs.map((run) => run.reopen)).toFixed(0)}-${Math.max(...runs.map((run) => run.reopen)).toFixed(0)} ms`,
  `  after: file ${(last.bytes / 1e6).toFixed(1)} MB (vacuumed by the conversion), live pages ${(last.liveBytes / 1e6).toFixed(1)} MB`,
];
process.stdout.write(`${lines.join("\n")}\n`);
