/**
 * The PostgreSQL store (docs/fleet.md): so far the readings history. Opened from a
 * URL (postgres://...); `FIELDHUB_DATABASE_URL` and a `store` section of the config
 * come with `fieldhub serve` on PostgreSQL. Only store/, tests and benchmarks use
 * it at this step (.dependency-cruiser.cjs).
 */
import { openPostgres, type PostgresOptions } from "./connection.ts";
import { PgReadingStore, type PgReadingStoreOptions } from "./reading-store.ts";

export interface PostgresStore {
  readings: PgReadingStore;
  close(): Promise<void>;
}

export async function openPostgresStore(
  url: string,
  options: PostgresOptions & { readings?: PgReadingStoreOptions } = {},
): Promise<PostgresStore> {
  const sql = await openPostgres(url, options);
  return {
    readings: new PgReadingStore(sql, options.readings),
    close: () => sql.close(),
  };
}
