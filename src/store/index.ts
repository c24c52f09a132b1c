/**
 * The store: every read and write of fieldhub's data, one typed interface per
 * domain. Nothing outside src/store/ sees SQL or the engine; a second engine
 * (PostgreSQL, say) would implement the same domain interfaces.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type AdminStore, sqliteAdminStore } from "./admin.ts";
import { type AlertStore, sqliteAlertStore } from "./alerts.ts";
import { openConnection } from "./connection.ts";
import { type EventStore, sqliteEventRecorder, sqliteEventStore } from "./events.ts";
import { type GatewayStore, sqliteGatewayStore } from "./gateways.ts";
import { type InventoryStore, sqliteInventoryStore } from "./inventory.ts";
import { type KeyStore, sqliteKeyStore } from "./keys.ts";
import { type OrganizationStore, sqliteOrganizationStore } from "./organizations.ts";
import { type ReadingStore, sqliteReadingStore } from "./readings.ts";
import { type RegisterStore, sqliteRegisterStore } from "./registers.ts";
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
  readonly admin: AdminStore;
  readonly organizations: OrganizationStore;
  readonly inventory: InventoryStore;
  readonly secrets: SecretStore;
  /** Register writes and their audit (issue 19). */
  readonly writes: WriteStore;
  /** Where the store lives (a file path, or `:memory:`). */
  readonly path: string;
  /** Makes one small real write; throws when the store takes none (full disk, read-only mount, broken file). */
  checkWritable(): void;
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
  const connection = openConnection(path);
  const recordEvent = sqliteEventRecorder(connection);
  const touch = connection.sqlite.prepare<never, [string]>(
    "INSERT INTO store_meta (key, value) VALUES ('healthz', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  );
  const store: Store = {
    readings: sqliteReadingStore(connection),
    registers: sqliteRegisterStore(connection),
    gateways: sqliteGatewayStore(connection, recordEvent),
    alerts: sqliteAlertStore(connection, recordEvent),
    events: sqliteEventStore(connection, recordEvent),
    webhooks: sqliteWebhookStore(connection, recordEvent),
    keys: sqliteKeyStore(connection),
    admin: sqliteAdminStore(connection),
    organizations: sqliteOrganizationStore(connection),
    inventory: sqliteInventoryStore(connection),
    secrets: sqliteSecretStore(connection),
    writes: sqliteWriteStore(connection, recordEvent),
    path,
    checkWritable: () => {
      touch.run(new Date().toISOString());
    },
    close: () => connection.sqlite.close(),
  };
  rememberConnection(store, connection);
  return store;
}
