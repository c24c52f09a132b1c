/**
 * The PostgreSQL store (docs/fleet.md): readings, inventory, registers, gateways,
 * alerts, keys, admin accounts, register writes and named secrets, each behind the
 * asynchronous form of its domain interface (async.ts). Opened from a URL
 * (postgres://...); `FIELDHUB_DATABASE_URL` and a `store` section of the config
 * come with `fieldhub serve` on PostgreSQL. Only store/, tests and benchmarks use
 * it at this step (.dependency-cruiser.cjs).
 */
import { PgAdminStore } from "./admin-store.ts";
import { PgAlertStore } from "./alert-store.ts";
import { openPostgres, type PostgresOptions } from "./connection.ts";
import { PgGatewayStore } from "./gateway-store.ts";
import { PgInventoryStore } from "./inventory-store.ts";
import { PgKeyStore } from "./key-store.ts";
import { PgOrganizationStore } from "./organization-store.ts";
import { PgReadingStore, type PgReadingStoreOptions } from "./reading-store.ts";
import { PgRegisterStore } from "./register-store.ts";
import { PgSecretStore } from "./secret-store.ts";
import { PgWriteStore } from "./write-store.ts";

export interface PostgresStore {
  readings: PgReadingStore;
  registers: PgRegisterStore;
  gateways: PgGatewayStore;
  alerts: PgAlertStore;
  keys: PgKeyStore;
  admin: PgAdminStore;
  organizations: PgOrganizationStore;
  inventory: PgInventoryStore;
  secrets: PgSecretStore;
  writes: PgWriteStore;
  close(): Promise<void>;
}

export async function openPostgresStore(
  url: string,
  options: PostgresOptions & { readings?: PgReadingStoreOptions } = {},
): Promise<PostgresStore> {
  const sql = await openPostgres(url, options);
  const readings = new PgReadingStore(sql, options.readings);
  return {
    readings,
    registers: new PgRegisterStore(sql),
    gateways: new PgGatewayStore(sql),
    alerts: new PgAlertStore(sql),
    keys: new PgKeyStore(sql),
    admin: new PgAdminStore(sql),
    organizations: new PgOrganizationStore(sql),
    inventory: new PgInventoryStore(sql),
    secrets: new PgSecretStore(sql),
    writes: new PgWriteStore(sql),
    close: async () => {
      // A clean close keeps the latest values `record` moved (as on SQLite).
      await readings.persistLatest();
      await sql.close();
    },
  };
}
