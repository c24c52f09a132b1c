/**
 * The SQLite connection behind a store: opening the file, its pragmas, and the
 * embedded migrations. Only the store's own SQLite code uses it.
 */
import { constants, Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { migrationJournal, migrationSql } from "./migrations/index.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema>;

/** drizzle for ordinary queries, the raw handle for hot paths. */
export interface SqliteConnection {
  readonly sqlite: Database;
  readonly db: Db;
}

/** `:memory:` works too, for tests that need no file. */
export function openConnection(path: string, busyTimeoutMs = 5000): SqliteConnection {
  const sqlite = new Database(path, { create: true, strict: true });
  // WAL lets the API read while ingest writes; NORMAL loses nothing on a process
  // crash (kill -9), only possibly the last commits on power loss.
  sqlite.exec("PRAGMA journal_mode = WAL");
  // Keep -wal and -shm on close: opening again then needs no new space, so a start
  // on a full disk can still read (the shared-memory file cannot be created there).
  if (path !== ":memory:") sqlite.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  sqlite.exec("PRAGMA foreign_keys = ON");
  const db = drizzle({ client: sqlite, schema });
  applyMigrations(db);
  return { sqlite, db };
}

function applyMigrations(db: Db): void {
  const migrations = migrationJournal.entries.map((entry) => {
    const text = migrationSql[entry.tag];
    if (text === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`);
    return {
      sql: text.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(text).digest("hex"),
    };
  });
  // The dialect's migrate is what drizzle's folder migrator calls after reading files.
  // Both are internal in drizzle's types, hence the narrow cast.
  const internals = db as unknown as {
    dialect: { migrate(m: typeof migrations, session: unknown, config: { migrationsFolder: string }): void };
    session: unknown;
  };
  internals.dialect.migrate(migrations, internals.session, { migrationsFolder: "(embedded)" });
}
