/**
 * The store: every read and write of fieldhub's data, one typed interface per
 * domain (the contract, ./contract/), implemented by two engines in their own
 * folders: SQLite (./sqlite/, a box) and PostgreSQL (./postgres/, a central).
 * Nothing outside src/store/ sees SQL or an engine: it opens a store here and
 * imports the contract's types, enums and errors from ./contract/ or from here.
 */
import type { Store } from "./contract/store.ts";
import type { PostgresStoreOptions } from "./postgres/index.ts";
import {
  openStore as openSqliteStore,
  openStoreFile as openSqliteStoreFile,
  type StoreOptions,
} from "./sqlite/index.ts";

export type { Store } from "./contract/store.ts";
export { memoryRateLimitStore } from "./memory-rate-limits.ts";
export { type StoreOptions, storeFileName } from "./sqlite/index.ts";

/**
 * Opens (creating if needed) the SQLite store in DIR and brings its schema up to
 * date; DIR and the store's files are made private (sqlite/index.ts).
 */
export function openStore(dataDir: string, options: StoreOptions = {}): Store {
  return openSqliteStore(dataDir, options);
}

/** The SQLite store in one file; `:memory:` works too, for tests that need no file. */
export function openStoreFile(path: string, options: StoreOptions = {}): Store {
  return openSqliteStoreFile(path, options);
}

/** The environment variable that puts the store on PostgreSQL (docs/fleet.md): `postgres://user[:password]@host[:port]/db`. */
export const databaseUrlVariable = "FIELDHUB_DATABASE_URL";

/**
 * The store a process works on: PostgreSQL at `databaseUrl` when one is given (a
 * central, docs/fleet.md; every process on the same database sees the same store),
 * otherwise the SQLite file in DIR.
 */
export async function openStoreAt(
  dataDir: string,
  options: StoreOptions & { databaseUrl?: string | null; webhookLeaseMs?: number } = {},
): Promise<Store> {
  if (options.databaseUrl === undefined || options.databaseUrl === null || options.databaseUrl === "") {
    return openStore(dataDir, options);
  }
  return openPostgresAsStore(options.databaseUrl, { webhooks: { leaseMs: options.webhookLeaseMs } });
}

/** The PostgreSQL store behind the `Store` interface (options: pool size, webhook leases; tests shorten the lease). */
export async function openPostgresAsStore(url: string, options: PostgresStoreOptions = {}): Promise<Store> {
  // Loaded only here: a box on SQLite never evaluates the PostgreSQL engine and
  // its client (docs/benchmarks.md, "Footprint").
  const { openPostgresStore } = await import("./postgres/index.ts");
  return await openPostgresStore(url, options);
}
