/**
 * The PostgreSQL store (docs/fleet.md): readings, inventory, registers, gateways,
 * alerts, keys, sites' edge tokens, admin accounts, register writes, named secrets, organisations, the
 * webhook outbox with its leases and shared rate limits, each behind its domain
 * interface. Opened from a URL (postgres://...); `FIELDHUB_DATABASE_URL` and a
 * `store` section of the config come with `fieldhub serve` on PostgreSQL. Only
 * store/, tests and benchmarks use it at this step (.dependency-cruiser.cjs).
 */
import { PgAdminStore } from "./admin-store.ts";
import { PgAlertStore } from "./alert-store.ts";
import { openPool, openPostgres, type PostgresOptions } from "./connection.ts";
import { PgEdgeStore } from "./edge-store.ts";
import { PgEventStore } from "./event-store.ts";
import { PgGatewayStore } from "./gateway-store.ts";
import { PgInventoryStore } from "./inventory-store.ts";
import { PgKeyStore } from "./key-store.ts";
import { PgOrganizationStore } from "./organization-store.ts";
import { PgRateLimitStore } from "./rate-limit-store.ts";
import { PgReadingStore, type PgReadingStoreOptions } from "./reading-store.ts";
import { PgRegisterStore } from "./register-store.ts";
import { PgSecretStore } from "./secret-store.ts";
import { PgWebhookStore, type PgWebhookStoreOptions } from "./webhook-store.ts";
import { PgWriteStore } from "./write-store.ts";

export interface PostgresStore {
  readings: PgReadingStore;
  registers: PgRegisterStore;
  gateways: PgGatewayStore;
  alerts: PgAlertStore;
  keys: PgKeyStore;
  edges: PgEdgeStore;
  admin: PgAdminStore;
  organizations: PgOrganizationStore;
  inventory: PgInventoryStore;
  secrets: PgSecretStore;
  writes: PgWriteStore;
  events: PgEventStore;
  webhooks: PgWebhookStore;
  rateLimits: PgRateLimitStore;
  /** Makes one small real write (/healthz), as the SQLite store does. */
  checkWritable(): Promise<void>;
  close(): Promise<void>;
}

export async function openPostgresStore(
  url: string,
  options: PostgresOptions & { readings?: PgReadingStoreOptions; webhooks?: PgWebhookStoreOptions } = {},
): Promise<PostgresStore> {
  const sql = await openPostgres(url, options);
  // Counters commit without waiting for the WAL flush (rate-limit-store.ts): a pool of their own.
  const counters = openPool(url, 2, { synchronous_commit: "off" });
  const readings = new PgReadingStore(sql, options.readings);
  return {
    readings,
    registers: new PgRegisterStore(sql),
    gateways: new PgGatewayStore(sql),
    alerts: new PgAlertStore(sql),
    keys: new PgKeyStore(sql),
    edges: new PgEdgeStore(sql),
    admin: new PgAdminStore(sql),
    organizations: new PgOrganizationStore(sql),
    inventory: new PgInventoryStore(sql),
    secrets: new PgSecretStore(sql),
    writes: new PgWriteStore(sql),
    events: new PgEventStore(sql),
    webhooks: new PgWebhookStore(sql, options.webhooks),
    rateLimits: new PgRateLimitStore(counters),
    checkWritable: async () => {
      await sql`INSERT INTO store_meta (key, value) VALUES ('healthz', ${new Date().toISOString()})
                ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
    close: async () => {
      // A clean close keeps the latest values `record` moved (as on SQLite).
      await readings.persistLatest();
      await counters.close();
      await sql.close();
    },
  };
}
