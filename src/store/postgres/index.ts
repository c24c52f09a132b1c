/**
 * The PostgreSQL store (docs/fleet.md): so far the readings history, the webhook
 * outbox with its leases, shared rate limits and organisations. Opened from a
 * URL (postgres://...); `FIELDHUB_DATABASE_URL` and a `store` section of the config
 * come with `fieldhub serve` on PostgreSQL. Only store/, tests and benchmarks use
 * it at this step (.dependency-cruiser.cjs).
 */
import { openPool, openPostgres, type PostgresOptions } from "./connection.ts";
import { PgEventStore } from "./event-store.ts";
import { PgOrganizationStore } from "./organization-store.ts";
import { PgRateLimitStore } from "./rate-limit-store.ts";
import { PgReadingStore, type PgReadingStoreOptions } from "./reading-store.ts";
import { PgWebhookStore, type PgWebhookStoreOptions } from "./webhook-store.ts";

export interface PostgresStore {
  readings: PgReadingStore;
  organizations: PgOrganizationStore;
  events: PgEventStore;
  webhooks: PgWebhookStore;
  rateLimits: PgRateLimitStore;
  close(): Promise<void>;
}

export async function openPostgresStore(
  url: string,
  options: PostgresOptions & { readings?: PgReadingStoreOptions; webhooks?: PgWebhookStoreOptions } = {},
): Promise<PostgresStore> {
  const sql = await openPostgres(url, options);
  // Counters commit without waiting for the WAL flush (rate-limit-store.ts): a pool of their own.
  const counters = openPool(url, 2, { synchronous_commit: "off" });
  return {
    readings: new PgReadingStore(sql, options.readings),
    organizations: new PgOrganizationStore(sql),
    events: new PgEventStore(sql),
    webhooks: new PgWebhookStore(sql, options.webhooks),
    rateLimits: new PgRateLimitStore(counters),
    close: async () => {
      await counters.close();
      await sql.close();
    },
  };
}
