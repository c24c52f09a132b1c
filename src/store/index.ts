/**
 * The store: every read and write of fieldhub's data, one typed interface per
 * domain. Nothing outside src/store/ sees SQL or the engine; a second engine
 * (PostgreSQL, say) would implement the same domain interfaces.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { type AdminStore, sqliteAdminStore } from "./admin.ts";
import { type AlertStore, sqliteAlertStore } from "./alerts.ts";
import { openConnection } from "./connection.ts";
import { type EdgeStore, sqliteEdgeStore } from "./edges.ts";
import { type EventStore, sqliteEventRecorder, sqliteEventStore } from "./events.ts";
import { type GatewayStore, sqliteGatewayStore } from "./gateways.ts";
import { blockReadingStore } from "./history/reading-store.ts";
import { type InventoryStore, sqliteInventoryStore } from "./inventory.ts";
import { type KeyStore, sqliteKeyStore } from "./keys.ts";
import { LatestValues } from "./latest-values.ts";
import { type OrganizationStore, sqliteOrganizationStore } from "./organizations.ts";
import { openPostgresStore } from "./postgres/index.ts";
import { memoryRateLimitStore, type RateLimitStore } from "./rate-limits.ts";
import type { ReadingStore } from "./readings.ts";
import { type RegisterStore, sqliteRegisterStore } from "./registers.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { type SecretStore, sqliteSecretStore } from "./secrets.ts";
import { rememberConnection } from "./sqlite-internals.ts";
import { sqliteWebhookStore, type WebhookStore } from "./webhooks.ts";
import { sqliteWriteStore, type WriteStore } from "./writes.ts";

/** An open store; each domain's statements are prepared once, when it opens. */
export interface Store {
  readonly readings: ReadingStore;
  readonly registers: RegisterStore;
  readonly gateways: GatewayStore;
  readonly alerts: AlertStore;
  /** The webhook outbox. */
  readonly events: EventStore;
  readonly webhooks: WebhookStore;
  readonly keys: KeyStore;
  /** Sites' edge tokens (docs/fleet.md). */
  readonly edges: EdgeStore;
  /** Requests per key and minute (in memory on a box: rate-limits.ts). */
  readonly rateLimits: RateLimitStore;
  readonly admin: AdminStore;
  readonly organizations: OrganizationStore;
  readonly inventory: InventoryStore;
  readonly secrets: SecretStore;
  /** Register writes and their audit. */
  readonly writes: WriteStore;
  /** Where the store lives (a file path, or `:memory:`). */
  readonly path: string;
  /** Makes one small real write; throws when the store takes none (full disk, read-only mount, broken file). */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

export const storeFileName = "fieldhub.db";

export interface StoreOptions {
  /**
   * How long a write waits for another process's lock before it fails with
   * `database is locked` (ms). The serving process keeps this short: a write is
   * synchronous, so a long wait stalls every request; its
   * writers retry on a timer instead. The short CLI commands may wait. Default 5000.
   */
  busyTimeoutMs?: number;
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
export async function openPostgresAsStore(
  url: string,
  options: Parameters<typeof openPostgresStore>[1] = {},
): Promise<Store> {
  const pg = await openPostgresStore(url, options);
  return {
    readings: detachable(pg.readings),
    registers: detachable(pg.registers),
    gateways: detachable(pg.gateways),
    alerts: detachable(pg.alerts),
    events: detachable(pg.events),
    webhooks: detachable(pg.webhooks),
    keys: detachable(pg.keys),
    edges: detachable(pg.edges),
    rateLimits: detachable(pg.rateLimits),
    admin: detachable(pg.admin),
    organizations: detachable(pg.organizations),
    inventory: detachable(pg.inventory),
    secrets: detachable(pg.secrets),
    writes: detachable(pg.writes),
    path: withoutPassword(url),
    checkWritable: pg.checkWritable,
    close: pg.close,
  };
}

/**
 * A PostgreSQL domain (a class) as a plain object of bound operations: callers
 * hand an operation on alone (`store.keys.lookup` to the API gate), as SQLite's
 * domains, which are plain objects, allow.
 */
function detachable<T extends object>(instance: T): T {
  const operations: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(instance); proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const member = (instance as Record<string, unknown>)[name];
      if (name !== "constructor" && !(name in operations) && typeof member === "function") {
        operations[name] = member.bind(instance);
      }
    }
  }
  return operations as T;
}

/** The URL as logs and /healthz may show it. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/**
 * Opens (creating if needed) the store in DIR and brings its schema up to date.
 * DIR is made 0700 and the store's files 0600, whoever creates them, and a looser
 * existing store is tightened: it holds webhook signing secrets and the cursor key.
 */
export function openStore(dataDir: string, options: StoreOptions = {}): Store {
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
export function openStoreFile(path: string, options: StoreOptions = {}): Store {
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
  const readings = blockReadingStore(connection, latest);
  const store: Store = {
    readings,
    registers: resolvedOperations(sqliteRegisterStore(connection, latest)),
    gateways: resolvedOperations(sqliteGatewayStore(connection, recordEvent)),
    alerts: resolvedOperations(sqliteAlertStore(connection, recordEvent)),
    events: resolvedOperations(sqliteEventStore(connection, recordEvent)),
    webhooks: resolvedOperations(sqliteWebhookStore(connection, recordEvent)),
    keys: resolvedOperations(sqliteKeyStore(connection)),
    edges: resolvedOperations(sqliteEdgeStore(connection)),
    rateLimits: memoryRateLimitStore(),
    admin: resolvedOperations(sqliteAdminStore(connection)),
    organizations: resolvedOperations(sqliteOrganizationStore(connection)),
    inventory: resolvedOperations(sqliteInventoryStore(connection)),
    secrets: resolvedOperations(sqliteSecretStore(connection)),
    writes: resolvedOperations(sqliteWriteStore(connection, recordEvent)),
    path,
    checkWritable: async () => {
      touch.run(new Date().toISOString());
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
