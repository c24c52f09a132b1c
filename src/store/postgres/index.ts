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
import { withRefusals } from "../contract/store-unavailable.ts";
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
import { postgresRefusal } from "./refusals.ts";
import { postgresRegisterStore } from "./register-store.ts";
import { postgresSecretStore } from "./secret-store.ts";
import { postgresSparkplugStore } from "./sparkplug-store.ts";
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
  // The engine's edge: every operation of every domain passes here, so a refusal
  // (server away, disk full, read-only...) leaves as StoreUnavailableError (refusals.ts).
  const edge = <T extends object>(domain: T): T => withRefusals(domain, postgresRefusal);
  const readings = edge(postgresReadingStore(sql, options.readings));
  const health = edge({
    checkWritable: async () => {
      await sql`INSERT INTO store_meta (key, value) VALUES ('healthz', ${new Date().toISOString()})
                ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
  });
  return {
    readings,
    registers: edge(postgresRegisterStore(sql)),
    gateways: edge(postgresGatewayStore(sql)),
    alerts: edge(postgresAlertStore(sql)),
    events: edge(postgresEventStore(sql)),
    webhooks: edge(postgresWebhookStore(sql, options.webhooks)),
    keys: edge(postgresKeyStore(sql)),
    edges: edge(postgresEdgeStore(sql)),
    rateLimits: edge(postgresRateLimitStore(counters)),
    admin: edge(postgresAdminStore(sql)),
    organizations: edge(postgresOrganizationStore(sql)),
    inventory: edge(postgresInventoryStore(sql)),
    secrets: edge(postgresSecretStore(sql)),
    sparkplug: edge(postgresSparkplugStore(sql)),
    writes: edge(postgresWriteStore(sql)),
    path: withoutPassword(url),
    checkWritable: health.checkWritable,
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
