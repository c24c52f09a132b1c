/**
 * TEST DOOR, for tests and benchmarks only: the raw SQLite handle and drizzle
 * database behind an open store, for setup and checks that no store operation
 * offers (pragmas, counting rows, simulating a broken disk). Application code
 * under src/ must never import this file; it goes through the Store's domain
 * operations (src/store/index.ts).
 */
import type { Database } from "bun:sqlite";
import type { Db, SqliteConnection } from "./connection.ts";

const connections = new WeakMap<object, SqliteConnection>();

/** Called by openStoreFile only. */
export function rememberConnection(store: object, connection: SqliteConnection): void {
  connections.set(store, connection);
}

function connectionOf(store: object): SqliteConnection {
  const connection = connections.get(store);
  if (connection === undefined) throw new Error("not a store opened by openStore/openStoreFile");
  return connection;
}

/** The bun:sqlite handle of an open store. */
export function sqliteOf(store: object): Database {
  return connectionOf(store).sqlite;
}

/** The drizzle database of an open store. */
export function drizzleOf(store: object): Db {
  return connectionOf(store).db;
}
