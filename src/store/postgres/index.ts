/**
 * The PostgreSQL store (docs/fleet.md): readings, inventory, registers, gateways,
 * alerts, keys, sites' edge tokens, admin accounts, register writes, named secrets, organisations, the
 * webhook outbox with its leases and shared rate limits, each domain a factory
 * returning its contract interface (../contract/) as a plain object of operations.
 * Opened from a URL (postgres://...); `FIELDHUB_DATABASE_URL` and a `store`
 * section of the config come with `fieldhub serve` on PostgreSQL. Only store/,
 * tests and benchmarks import it (.dependency-cruiser.cjs): everything else
 * opens it through `openStoreAt` (../index.ts).
 */
import type { Store } from "../contract/store.ts";
import { postgresAdminStore } from "./admin-store.ts";
import { postgresAlertStore } from "./alert-store.ts";
import { openPool, openPostgres, type PostgresOptions } from "./connection.ts";
import { postgresEdgeStore } from "./edge-store.ts";
import { postgresEventStore } from "./event-store.ts";
import { postgresGatewayStore } from "./gateway-store.ts";
import { postgresInventoryStore } from "./inventory-store.ts";
import { postgresKeyStore } from "./key-store.ts";
import { postgresOrganizationStore } from "./organization-store.ts";
import { postgresRateLimitStore } from "./rate-limit-store.ts";
import { type PostgresReadingStore, type PostgresReadingStoreOptions, postgresReadingStore } from "./reading-store.ts";
import { postgresRegisterStore } from "./register-store.ts";
import { postgresSecretStore } from "./secret-store.ts";
import { type PostgresWebhookStoreOptions, postgresWebhookStore } from "./webhook-store.ts";
import { postgresWriteStore } from "./write-store.ts";

/** The store on PostgreSQL; its readings also offer the retention batch steps its own tests drive. */
export interface PostgresStore extends Store {
  readonly readings: PostgresReadingStore;
}

export interface PostgresStoreOptions extends PostgresOptions {
  readings?: PostgresReadingStoreOptions;
  webhooks?: PostgresWebhookStoreOptions;
}

export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const sql = await openPostgres(url, options);
  // Counters commit without waiting for the WAL flush (rate-limit-store.ts): a pool of their own.
  const counters = openPool(url, 2, { synchronous_commit: "off" });
  const readings = postgresReadingStore(sql, options.readings);
  return {
    readings,
    registers: postgresRegisterStore(sql),
    gateways: postgresGatewayStore(sql),
    alerts: postgresAlertStore(sql),
    events: postgresEventStore(sql),
    webhooks: postgresWebhookStore(sql, options.webhooks),
    keys: postgresKeyStore(sql),
    edges: postgresEdgeStore(sql),
    rateLimits: postgresRateLimitStore(counters),
    admin: postgresAdminStore(sql),
    organizations: postgresOrganizationStore(sql),
    inventory: postgresInventoryStore(sql),
    secrets: postgresSecretStore(sql),
    writes: postgresWriteStore(sql),
    path: withoutPassword(url),
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
