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
import { blockReadingStore } from "./history/reading-store.ts";
import { LatestValues } from "./latest-values.ts";
import type { ReadingStore } from "./readings.ts";
import { type RegisterStore, sqliteRegisterStore } from "./registers.ts";
import { type SecretStore, sqliteSecretStore } from "./secrets.ts";
import { rememberConnection } from "./sqlite-internals.ts";
import { sqliteWebhookStore, type WebhookStore } from "./webhooks.ts";

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
  const latest = new LatestValues(connection.sqlite);
  const readings = blockReadingStore(connection, latest);
  const store: Store = {
    readings,
    registers: sqliteRegisterStore(connection, latest),
    gateways: sqliteGatewayStore(connection, recordEvent),
    alerts: sqliteAlertStore(connection, recordEvent),
    events: sqliteEventStore(connection, recordEvent),
    webhooks: sqliteWebhookStore(connection, recordEvent),
    keys: sqliteKeyStore(connection),
    admin: sqliteAdminStore(connection),
    organizations: sqliteOrganizationStore(connection),
    inventory: sqliteInventoryStore(connection),
    secrets: sqliteSecretStore(connection),
    path,
    checkWritable: () => {
      touch.run(new Date().toISOString());
    },
    close: () => {
      // A clean close keeps the latest values read (issue 17: not written every flush).
      readings.persistLatest();
      connection.sqlite.close();
    },
  };
  rememberConnection(store, connection);
  return store;
}
