/**
 * Upgrade from the one-row-per-reading layout: a store as
 * the previous release wrote it (migrations up to 0007, history in `readings`) is
 * converted on open, every reading kept exactly (integers, float32 bit for bit,
 * float64, null); a conversion killed midway (kill -9 of a real process) carries
 * on at the next open.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ReadingRow, readingEpochMs } from "../../../src/store/contract/readings.ts";
import { openStore, storeFileName } from "../../../src/store/index.ts";
import { sqliteOf } from "../../../src/store/sqlite/sqlite-internals.ts";
import { seededRandom } from "../../harness/seeded-random.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-upgrade-"));
  dirs.push(dir);
  return dir;
}

const migrationsDir = join(import.meta.dir, "..", "..", "..", "src", "store", "sqlite", "migrations");
const journal = JSON.parse(readFileSync(join(migrationsDir, "meta", "_journal.json"), "utf8")) as {
  entries: { tag: string; when: number }[];
};
const upgradeMigration = journal.entries.find((entry) => entry.tag.endsWith("_history_upgrade"));

/**
 * A store as the release before the block history left it: every migration before the
 * history upgrade applied, history rows in `readings` (migration 0006's layout).
 */
async function legacyStore(dataDir: string, rows: ReadingRow[]): Promise<void> {
  if (upgradeMigration === undefined) throw new Error("journal lacks the history upgrade migration");
  const store = openStore(dataDir);
  const db = sqliteOf(store);
  db.exec(`CREATE TABLE readings (register_id integer NOT NULL, ts_s integer NOT NULL, raw_value numeric,
             PRIMARY KEY (register_id, ts_s)) WITHOUT ROWID`);
  const insert = db.prepare<never, [number, number, number | null]>(
    "INSERT INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
  );
  db.transaction(() => {
    for (const row of rows) insert.run(row.registerId, (row.ts - readingEpochMs) / 1000, row.rawValue);
  })();
  db.run("DELETE FROM __drizzle_migrations WHERE created_at >= ?1", [upgradeMigration.when]);
  // ...and undo what the migrations after it add, so that they apply again too.
  db.exec(
    "ALTER TABLE modbus_devices DROP COLUMN storage_interval_ms; ALTER TABLE modbus_devices DROP COLUMN offline_announced_at",
  );
  db.exec(
    "DROP TABLE history_generation; DROP TABLE edge_tokens; ALTER TABLE gateways DROP COLUMN edge_site; ALTER TABLE alerts DROP COLUMN edge_event_seq; ALTER TABLE alerts DROP COLUMN requested_action; ALTER TABLE alerts DROP COLUMN requested_note; ALTER TABLE alerts DROP COLUMN requested_at; ALTER TABLE alerts DROP COLUMN register_id; ALTER TABLE history_tail DROP COLUMN agg; ALTER TABLE webhook_endpoints DROP COLUMN rate_limit_per_s; ALTER TABLE registers DROP COLUMN poll_interval_ms;",
  );
  db.run("DELETE FROM history_state");
  await store.close();
}

const minute = 60_000;
/** Readings every minute for `days` up to now, whole seconds, each register its own kind of value. */
function history(registers: number, days: number, seed: number): ReadingRow[] {
  const random = seededRandom(seed);
  const end = Math.floor(Date.now() / minute) * minute - 5 * minute;
  const rows: ReadingRow[] = [];
  for (let registerId = 1; registerId <= registers; registerId++) {
    for (let ts = end - days * 1440 * minute; ts < end; ts += minute) {
      const draw = random();
      const kind = registerId % 4;
      const rawValue =
        kind === 0
          ? Math.floor(draw * 65_536) - 32_768
          : kind === 1
            ? Math.fround(230 + draw * 10)
            : kind === 2
              ? draw < 0.1
                ? null
                : draw * 1e6
              : 4_294_967_295 - Math.floor(draw * 1000);
      rows.push({ registerId, ts, rawValue });
    }
  }
  return rows;
}

async function everyReading(store: ReturnType<typeof openStore>, registerIds: number[]): Promise<ReadingRow[]> {
  const rows: ReadingRow[] = [];
  for (const registerId of registerIds) {
    let after: { ts: number; registerId: number } | null = null;
    for (;;) {
      const page = await store.readings.page({
        registerIds: [registerId],
        since: 0,
        until: 2 ** 50,
        order: "asc",
        limit: 1000,
        after,
      });
      rows.push(...page.rows);
      const last = page.rows.at(-1);
      if (!page.hasMore || last === undefined) break;
      after = { ts: last.ts, registerId: last.registerId };
    }
  }
  return rows;
}

test("a store in the row layout is converted on open: every reading kept exactly, the old table gone", async () => {
  const dataDir = tempDir();
  const rows = history(8, 4, 5);
  await legacyStore(dataDir, rows);

  const store = openStore(dataDir);
  try {
    const db = sqliteOf(store);
    const tables = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    expect(tables.map((table) => table.name)).not.toContain("readings_legacy");
    expect(tables.map((table) => table.name)).not.toContain("readings");
    // Ended days are in blocks, the current one in the tail.
    const blocks = db.query<{ n: number }, []>("SELECT coalesce(sum(count), 0) AS n FROM history_blocks").get()?.n;
    expect(blocks).toBeGreaterThan(8 * 3 * 1440 - 8 * 1440);
    const converted = await everyReading(store, [1, 2, 3, 4, 5, 6, 7, 8]);
    expect(converted.length).toBe(rows.length);
    // Values exact: integers, float32 bit for bit, float64, and null kept apart from 0.
    expect(converted).toEqual(rows);
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  } finally {
    await store.close();
  }
  // A second open is a no-op.
  const again = openStore(dataDir);
  try {
    expect((await everyReading(again, [1, 2, 3, 4, 5, 6, 7, 8])).length).toBe(rows.length);
  } finally {
    await again.close();
  }
});

test("a conversion killed midway (kill -9) carries on at the next open; nothing lost or doubled", async () => {
  const dataDir = tempDir();
  const registers = 300;
  const rows = history(registers, 3, 9);
  await legacyStore(dataDir, rows);
  const file = join(dataDir, storeFileName);
  const legacyLeft = () => {
    const db = new Database(file, { readonly: true });
    try {
      const table = db.query("SELECT 1 FROM sqlite_master WHERE name = 'readings_legacy'").get();
      const name = table === null ? "readings" : "readings_legacy";
      return db.query<{ n: number }, []>(`SELECT count(DISTINCT register_id) AS n FROM ${name}`).get()?.n ?? 0;
    } catch {
      return -1; // the table is gone: the conversion finished
    } finally {
      db.close();
    }
  };
  expect(legacyLeft()).toBe(registers);

  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "fixtures", "open-store.ts"), dataDir], {
    stdout: "pipe",
    stderr: "inherit",
  });
  let left = registers;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    left = legacyLeft();
    if (left > 0 && left < registers * 0.7) break;
    await Bun.sleep(5);
  }
  child.kill("SIGKILL");
  await child.exited;
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThan(registers);

  const store = openStore(dataDir);
  try {
    const ids = Array.from({ length: registers }, (_, index) => index + 1);
    const converted = await everyReading(store, ids);
    expect(converted.length).toBe(rows.length);
    expect(converted).toEqual(rows);
    const db = sqliteOf(store);
    expect(db.query("SELECT 1 FROM sqlite_master WHERE name = 'readings_legacy'").get()).toBeNull();
    expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check).toBe("ok");
  } finally {
    await store.close();
  }
}, 60_000);
