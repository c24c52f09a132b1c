/**
 * Embedded migrations (product: drizzle's folder migrator does not work inside a
 * compiled executable, so the SQL is embedded; "a second start is a no-op") and
 * the physical layout of the store, read back from SQLite itself.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { openStore, storeFileName } from "../../src/store/index.ts";
import { migrationJournal, migrationSql } from "../../src/store/sqlite/migrations/index.ts";
import * as schema from "../../src/store/sqlite/schema.ts";
import { sqliteOf } from "../../src/store/sqlite/sqlite-internals.ts";
import { ids, inventory } from "./postgres/inventory-fixture.ts";

const migrationsDir = join(import.meta.dir, "..", "..", "src", "store", "sqlite", "migrations");
const journalOnDisk = JSON.parse(readFileSync(join(migrationsDir, "meta", "_journal.json"), "utf8")) as {
  entries: { idx: number; tag: string; when: number }[];
};

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fieldhub-migrations-"));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Table names declared in drizzle's schema module. */
const schemaTables = Object.values(schema)
  .filter((value) => is(value, SQLiteTable))
  .map((table) => getTableName(table as SQLiteTable));

/** Table names the migration SQL creates. */
// Tables the migrations create, less those a later migration renames away (a rebuild).
const renamedAway = new Set(
  Object.values(migrationSql).flatMap((text) =>
    [...text.matchAll(/ALTER TABLE\s+[`"]?(\w+)[`"]?\s+RENAME TO/gi)].map((match) => match[1] ?? ""),
  ),
);
const migrationTables = Object.values(migrationSql)
  .flatMap((text) =>
    [...text.matchAll(/CREATE TABLE\s+(?:IF NOT EXISTS\s+)?[`"]?(\w+)[`"]?/gi)].map((match) => match[1] ?? ""),
  )
  .filter((table) => !renamedAway.has(table));

describe("the embedded migrations", () => {
  test("every journal entry has its SQL embedded, equal to the file drizzle-kit wrote", () => {
    expect(journalOnDisk.entries.length).toBeGreaterThan(0);
    expect(migrationJournal.entries.map((entry) => entry.tag)).toEqual(journalOnDisk.entries.map((entry) => entry.tag));
    for (const entry of journalOnDisk.entries) {
      const embedded = migrationSql[entry.tag];
      expect(embedded, `migration ${entry.tag} is not in migrationSql`).toBeString();
      expect((embedded ?? "").trim().length).toBeGreaterThan(0);
      expect(embedded).toBe(readFileSync(join(migrationsDir, `${entry.tag}.sql`), "utf8"));
    }
  });

  test("every SQL file in the folder is in the journal, and nothing else is embedded", () => {
    const tags = journalOnDisk.entries.map((entry) => entry.tag).sort();
    const files = readdirSync(migrationsDir)
      .filter((name) => name.endsWith(".sql"))
      .map((name) => name.slice(0, -".sql".length))
      .sort();
    expect(files).toEqual(tags);
    expect(Object.keys(migrationSql).sort()).toEqual(tags);
  });

  test("the journal is in order", () => {
    const entries = journalOnDisk.entries;
    entries.forEach((entry, index) => {
      expect(entry.idx).toBe(index);
      if (index > 0) expect(entry.when).toBeGreaterThan(entries[index - 1]?.when ?? 0);
    });
  });
});

describe("a fresh store", () => {
  let dataDir: string;
  let sqlite: Database;
  let close: () => void;

  beforeAll(() => {
    dataDir = tempDir();
    const store = openStore(dataDir);
    sqlite = sqliteOf(store);
    close = async () => await store.close();
  });
  afterAll(() => close());

  const tableNames = () =>
    sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => row.name);

  test("has every table of the schema and of the migrations", () => {
    expect(schemaTables.length).toBeGreaterThan(0);
    const tables = tableNames();
    for (const table of new Set([...schemaTables, ...migrationTables])) expect(tables).toContain(table);
    expect(tables).toContain("__drizzle_migrations");
  });

  test("records each migration once", () => {
    const rows = sqlite
      .query<{ created_at: number }, []>("SELECT created_at FROM __drizzle_migrations ORDER BY created_at")
      .all();
    expect(rows.map((row) => Number(row.created_at))).toEqual(journalOnDisk.entries.map((entry) => entry.when));
  });

  test("history is in history_blocks (WITHOUT ROWID, key period, register, first second) and history_tail; no readings table is left", () => {
    const tables = tableNames();
    expect(tables).not.toContain("readings");
    expect(tables).not.toContain("readings_legacy");
    const table = sqlite
      .query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'history_blocks'")
      .get();
    expect(table?.sql).toMatch(/\)\s*WITHOUT\s+ROWID\s*$/i);
    const columns = sqlite.query<{ name: string; pk: number }, []>("PRAGMA table_info('history_blocks')").all();
    const primaryKey = columns
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    expect(primaryKey).toEqual(["period", "register_id", "start_s"]);
    // The tail is appended to: no index besides its rowid.
    expect(sqlite.query("PRAGMA index_list('history_tail')").all()).toEqual([]);
  });

  test("uses WAL, also as seen by another connection", () => {
    expect(sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    const other = new Database(join(dataDir, storeFileName), { readonly: true });
    try {
      expect(other.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
    } finally {
      other.close();
    }
  });
});

describe("opening an existing store", () => {
  test("is a no-op: same migration rows, same schema, data kept", async () => {
    const dataDir = tempDir();
    const schemaOf = (db: Database) =>
      db
        .query<{ type: string; name: string; sql: string | null }, []>(
          "SELECT type, name, sql FROM sqlite_master ORDER BY type, name",
        )
        .all();
    const migrationRows = (db: Database) =>
      db
        .query<{ hash: string; created_at: number }, []>(
          "SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at",
        )
        .all();

    const first = openStore(dataDir);
    const firstRows = migrationRows(sqliteOf(first));
    const firstSchema = schemaOf(sqliteOf(first));
    sqliteOf(first).run("INSERT INTO store_meta (key, value) VALUES ('migration-test', 'kept')");
    await first.close();

    const second = openStore(dataDir);
    try {
      expect(migrationRows(sqliteOf(second))).toEqual(firstRows);
      expect(firstRows.length).toBe(journalOnDisk.entries.length);
      expect(schemaOf(sqliteOf(second))).toEqual(firstSchema);
      expect(
        sqliteOf(second).query<{ value: string }, []>("SELECT value FROM store_meta WHERE key = 'migration-test'").get()
          ?.value,
      ).toBe("kept");
    } finally {
      await second.close();
    }

    const third = openStore(dataDir);
    try {
      expect(migrationRows(sqliteOf(third))).toEqual(firstRows);
    } finally {
      await third.close();
    }
  });
});

describe("upgrading readings to seconds (migration 0006)", () => {
  test("Unix-millisecond readings become seconds since 2020, rounded down; values and order kept", async () => {
    const dataDir = tempDir();
    const before = openStore(dataDir);
    // The store as it was before 0006: readings keyed by Unix milliseconds, and
    // without what later migrations add (a device's storage period among them).
    sqliteOf(before).exec(`
      ALTER TABLE modbus_devices DROP COLUMN storage_interval_ms;
      CREATE TABLE readings (register_id integer NOT NULL, ts integer NOT NULL, raw_value numeric,
        PRIMARY KEY (register_id, ts)) WITHOUT ROWID;`);
    const rows: [number, number, number | null][] = [
      [1, Date.UTC(2026, 2, 10, 12, 0, 0), 215],
      [1, Date.UTC(2026, 2, 10, 12, 1, 0, 999), 216.5],
      [1, Date.UTC(2026, 2, 10, 12, 2, 0, 1), null],
      [2, Date.UTC(2019, 11, 31, 23, 59, 59, 500), -3], // before the epoch: rounded down too
      [2, Date.UTC(2020, 0, 1), 7],
    ];
    const insert = sqliteOf(before).prepare("INSERT INTO readings (register_id, ts, raw_value) VALUES (?, ?, ?)");
    for (const row of rows) insert.run(...row);
    const tags = journalOnDisk.entries.map((entry) => entry.tag);
    // Forget 0006 and everything after it, so that opening applies them again.
    const seconds = journalOnDisk.entries[tags.indexOf("0006_readings_seconds")];
    if (seconds === undefined) throw new Error("journal lacks 0006_readings_seconds");
    sqliteOf(before).run("DELETE FROM __drizzle_migrations WHERE created_at >= ?", [seconds.when]);
    // ...and undo what the migrations after it created (0008 renamed readings away; here it is back).
    sqliteOf(before).exec("DROP TABLE history_blocks; DROP TABLE history_tail; DROP TABLE history_state;");
    sqliteOf(before).exec("ALTER TABLE registers DROP COLUMN latest_text");
    sqliteOf(before).exec(`
      DROP TABLE register_writes;
      ALTER TABLE organizations DROP COLUMN writes_enabled;
      ALTER TABLE registers DROP COLUMN write_min;
      ALTER TABLE registers DROP COLUMN write_max;`);
    sqliteOf(before).exec(`
      ALTER TABLE organizations DROP COLUMN removed_at;
      DROP INDEX webhook_deliveries_endpoint_due;`);
    sqliteOf(before).exec(
      "DROP TABLE history_generation; DROP TABLE edge_tokens; ALTER TABLE gateways DROP COLUMN edge_site; ALTER TABLE alerts DROP COLUMN edge_event_seq; ALTER TABLE alerts DROP COLUMN requested_action; ALTER TABLE alerts DROP COLUMN requested_note; ALTER TABLE alerts DROP COLUMN requested_at; ALTER TABLE alerts DROP COLUMN register_id;",
    );
    sqliteOf(before).exec("ALTER TABLE modbus_devices DROP COLUMN offline_announced_at");
    sqliteOf(before).exec("ALTER TABLE webhook_endpoints DROP COLUMN rate_limit_per_s");
    sqliteOf(before).exec("ALTER TABLE registers DROP COLUMN poll_interval_ms");
    await before.close();

    // 0006 and every later migration run, then the block conversion (history/upgrade.ts) moves every row.
    const after = openStore(dataDir);
    try {
      const stored = (
        await after.readings.page({
          registerIds: [1, 2],
          since: 0,
          until: 2 ** 50,
          order: "asc",
          limit: 10,
          after: null,
        })
      ).rows;
      const epoch = Date.UTC(2020, 0, 1);
      expect(stored).toEqual([
        { registerId: 2, ts: epoch - 1000, rawValue: -3 },
        { registerId: 2, ts: epoch, rawValue: 7 },
        { registerId: 1, ts: Date.UTC(2026, 2, 10, 12, 0, 0), rawValue: 215 },
        { registerId: 1, ts: Date.UTC(2026, 2, 10, 12, 1, 0), rawValue: 216.5 },
        { registerId: 1, ts: Date.UTC(2026, 2, 10, 12, 2, 0), rawValue: null },
      ]);
      // Read back through the store's own queries, in Unix milliseconds again.
      const page = after.readings.page({
        registerIds: [1],
        since: Date.UTC(2026, 2, 10, 12, 0, 0),
        until: Date.UTC(2026, 2, 10, 12, 2, 0, 1),
        order: "asc",
        limit: 10,
        after: null,
      });
      expect((await page).rows.map((row) => row.ts)).toEqual([
        Date.UTC(2026, 2, 10, 12, 0, 0),
        Date.UTC(2026, 2, 10, 12, 1, 0),
        Date.UTC(2026, 2, 10, 12, 2, 0),
      ]);
      expect(
        sqliteOf(after).query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check,
      ).toBe("ok");
    } finally {
      await after.close();
    }
  });
});

describe("a device's write in the audit (migration 0024)", () => {
  test("register writes recorded before it are kept, each still naming its register; a row naming neither a register nor a device is refused", async () => {
    const dataDir = tempDir();
    const before = openStore(dataDir);
    await before.inventory.sync(inventory(), Date.UTC(2026, 0, 1));
    const db = sqliteOf(before);
    const registerId = db
      .query<{ id: number }, [string]>("SELECT id FROM registers WHERE uuid = ?")
      .get(ids.register(1))?.id;
    // The table as 0009 made it: a register on every row; one row in it.
    db.exec(`
      DROP TABLE register_writes;
      CREATE TABLE register_writes (id integer PRIMARY KEY NOT NULL, uuid text NOT NULL, org_id integer NOT NULL,
        register_id integer NOT NULL, actor text NOT NULL, value_before real, value_asked real NOT NULL,
        result text NOT NULL, read_back real, detail text, requested_at integer NOT NULL, finished_at integer NOT NULL);
      INSERT INTO register_writes (uuid, org_id, register_id, actor, value_before, value_asked, result, read_back,
        detail, requested_at, finished_at) VALUES ('w-1', 1, ${registerId}, 'key:fh_live_x', 20, 21.5, 'written', 21.5, NULL, 1000, 1005);`);
    const entry = journalOnDisk.entries.find((candidate) => candidate.tag === "0024_register_writes_device");
    if (entry === undefined) throw new Error("journal lacks 0024_register_writes_device");
    db.run("DELETE FROM __drizzle_migrations WHERE created_at >= ?", [entry.when]);
    await before.close();

    const after = openStore(dataDir);
    try {
      const rows = sqliteOf(after).query("SELECT * FROM register_writes").all();
      expect(rows).toEqual([
        {
          id: 1,
          uuid: "w-1",
          org_id: 1,
          register_id: registerId,
          modbus_device_id: null,
          actor: "key:fh_live_x",
          value_before: 20,
          value_asked: 21.5,
          result: "written",
          read_back: 21.5,
          detail: null,
          requested_at: 1000,
          finished_at: 1005,
          function_code: null,
          address: null,
          values_written: null,
        },
      ]);
      const columns = sqliteOf(after)
        .query<{ name: string; notnull: number }, []>("PRAGMA table_info(register_writes)")
        .all();
      expect(columns.filter((column) => column.notnull === 0).map((column) => column.name)).toContain("register_id");
      // Neither a register nor a device: refused by the table.
      expect(() =>
        sqliteOf(after).exec(
          "INSERT INTO register_writes (uuid, org_id, actor, result, requested_at, finished_at) VALUES ('w-2', 1, 'a', 'written', 0, 0)",
        ),
      ).toThrow(/CHECK/);
    } finally {
      await after.close();
    }
  });
});
