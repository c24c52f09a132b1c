/**
 * The SQLite store (a box's, docs/architecture.md "Store"): one file in the data
 * directory, each domain a factory returning its contract interface (../contract/)
 * as a plain object of operations. Only store/, tests and benchmarks import it
 * (.dependency-cruiser.cjs): everything else opens it through ../index.ts.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../contract/store.ts";
import { withRefusals } from "../contract/store-unavailable.ts";
import { memoryRateLimitStore } from "../memory-rate-limits.ts";
import { sqliteAdminStore } from "./admin.ts";
import { sqliteAlertStore } from "./alerts.ts";
import { openConnection } from "./connection.ts";
import { sqliteEdgeStore } from "./edges.ts";
import { sqliteEventRecorder, sqliteEventStore } from "./events.ts";
import { sqliteGatewayStore } from "./gateways.ts";
import { sqliteInventoryStore } from "./inventory.ts";
import { sqliteKeyStore } from "./keys.ts";
import { LatestValues } from "./latest-values.ts";
import { sqliteOrganizationStore } from "./organizations.ts";
import { type SqliteReadingStore, sqliteReadingStore } from "./readings.ts";
import { sqliteRefusal } from "./refusals.ts";
import { sqliteRegisterStore } from "./registers.ts";
import { sqliteSecretStore } from "./secrets.ts";
import { sqliteSparkplugStore } from "./sparkplug.ts";
import { rememberConnection } from "./sqlite-internals.ts";
import { sqliteWebhookStore } from "./webhooks.ts";
import { sqliteWriteStore } from "./writes.ts";

export const storeFileName = "fieldhub.db";

/** The store on SQLite; its readings also offer the retention batch steps (benchmarks time them). */
export interface SqliteStore extends Store {
  readonly readings: SqliteReadingStore;
}

export interface StoreOptions {
  /**
   * How long a write waits for another process's lock before it fails with
   * `database is locked` (ms). The serving process keeps this short: a write is
   * synchronous, so a long wait stalls every request; its
   * writers retry on a timer instead. The short CLI commands may wait. Default 5000.
   */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the store in DIR and brings its schema up to date.
 * DIR is made 0700 and the store's files 0600, whoever creates them, and a looser
 * existing store is tightened: it holds webhook signing secrets and the cursor key.
 */
export function openStore(dataDir: string, options: StoreOptions = {}): SqliteStore {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  makePrivate(dataDir, 0o700);
  return openStoreFile(join(dataDir, storeFileName), options);
}

/** Removes group and other access from PATH if it has any (and this user may). */
function makePrivate(path: string, mode: 0o700 | 0o600): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, mode);
  } catch {
    // Not ours to change (another user's file): SQLite or the caller reports what matters.
  }
}

/** `:memory:` works too, for tests that need no file. */
export function openStoreFile(path: string, options: StoreOptions = {}): SqliteStore {
  const onDisk = path !== ":memory:" && !path.startsWith("file:");
  // SQLite creates -wal and -shm with the database file's mode: create that 0600 first.
  if (onDisk && !existsSync(path)) closeSync(openSync(path, "a", 0o600));
  const connection = openConnection(path, options.busyTimeoutMs ?? 5000);
  if (onDisk) for (const file of [path, `${path}-wal`, `${path}-shm`]) makePrivate(file, 0o600);
  const recordEvent = sqliteEventRecorder(connection);
  const touch = connection.sqlite.prepare<never, [string]>(
    "INSERT INTO store_meta (key, value) VALUES ('healthz', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const latest = new LatestValues(connection.sqlite);
  // The domains made by resolvedOperations map SQLite's refusals themselves; the
  // readings (asynchronous already) and the health write pass the same edge here.
  const readings = withRefusals(sqliteReadingStore(connection, latest), sqliteRefusal);
  const store: SqliteStore = {
    readings,
    registers: sqliteRegisterStore(connection, latest),
    gateways: sqliteGatewayStore(connection, recordEvent),
    alerts: sqliteAlertStore(connection, recordEvent),
    events: sqliteEventStore(connection, recordEvent),
    webhooks: sqliteWebhookStore(connection, recordEvent),
    keys: sqliteKeyStore(connection),
    edges: sqliteEdgeStore(connection),
    rateLimits: memoryRateLimitStore(),
    admin: sqliteAdminStore(connection),
    organizations: sqliteOrganizationStore(connection),
    inventory: sqliteInventoryStore(connection),
    secrets: sqliteSecretStore(connection),
    sparkplug: sqliteSparkplugStore(connection),
    writes: sqliteWriteStore(connection, recordEvent),
    path,
    checkWritable: async () => {
      try {
        touch.run(new Date().toISOString());
      } catch (error) {
        throw sqliteRefusal(error);
      }
    },
    close: async () => {
      // A clean close keeps the latest values read (not written every flush).
      await readings.persistLatest();
      connection.sqlite.close();
    },
  };
  rememberConnection(store, connection);
  return store;
}
