import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { migrationJournal, migrationSql } from "./migrations/index.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema>;

/** An open store: drizzle for ordinary queries, the raw handle for hot paths. */
export interface Store {
  readonly sqlite: Database;
  readonly db: Db;
  readonly path: string;
  close(): void;
}

export const storeFileName = "fieldhub.db";

/** Opens (creating if needed) the store in DIR and brings its schema up to date. */
export function openStore(dataDir: string): Store {
  mkdirSync(dataDir, { recursive: true });
  return openStoreFile(join(dataDir, storeFileName));
}

/** `:memory:` works too, for tests that need no file. */
export function openStoreFile(path: string): Store {
  const sqlite = new Database(path, { create: true, strict: true });
  // WAL lets the API read while ingest writes; NORMAL loses nothing on a process
  // crash (kill -9), only possibly the last commits on power loss.
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  const db = drizzle({ client: sqlite, schema });
  applyMigrations(db);
  return {
    sqlite,
    db,
    path,
    close: () => sqlite.close(),
  };
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
