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
import { migrationJournal, migrationSql } from "../../src/store/migrations/index.ts";
import * as schema from "../../src/store/schema.ts";
import { openStore, storeFileName } from "../../src/store/open.ts";

const migrationsDir = join(import.meta.dir, "..", "..", "src", "store", "migrations");
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
  .flatMap((text) => [...text.matchAll(/CREATE TABLE\s+(?:IF NOT EXISTS\s+)?[`"]?(\w+)[`"]?/gi)].map((match) => match[1] ?? ""))
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
    sqlite = store.sqlite;
    close = () => store.close();
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

  test("readings is WITHOUT ROWID with primary key (register_id, ts)", () => {
    const table = sqlite
      .query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'readings'")
      .get();
    expect(table?.sql).toMatch(/\)\s*WITHOUT\s+ROWID\s*$/i);
    const list = sqlite.query<{ name: string; wr: number }, []>("PRAGMA table_list('readings')").get();
    expect(list?.wr).toBe(1);

    const columns = sqlite.query<{ name: string; pk: number }, []>("PRAGMA table_info('readings')").all();
    const primaryKey = columns
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    expect(primaryKey).toEqual(["register_id", "ts"]);
  });

  test("readings has no index besides its primary key", () => {
    const declared = sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'readings'")
      .all();
    expect(declared).toEqual([]);
    const indexes = sqlite.query<{ name: string; origin: string }, []>("PRAGMA index_list('readings')").all();
    expect(indexes.map((index) => index.origin)).toEqual(["pk"]);
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
  test("is a no-op: same migration rows, same schema, data kept", () => {
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
    const firstRows = migrationRows(first.sqlite);
    const firstSchema = schemaOf(first.sqlite);
    first.sqlite.run("INSERT INTO store_meta (key, value) VALUES ('migration-test', 'kept')");
    first.close();

    const second = openStore(dataDir);
    try {
      expect(migrationRows(second.sqlite)).toEqual(firstRows);
      expect(firstRows.length).toBe(journalOnDisk.entries.length);
      expect(schemaOf(second.sqlite)).toEqual(firstSchema);
      expect(
        second.sqlite.query<{ value: string }, []>("SELECT value FROM store_meta WHERE key = 'migration-test'").get()
          ?.value,
      ).toBe("kept");
    } finally {
      second.close();
    }

    const third = openStore(dataDir);
    try {
      expect(migrationRows(third.sqlite)).toEqual(firstRows);
    } finally {
      third.close();
    }
  });
});
