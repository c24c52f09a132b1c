/** Organisations: the tenants every other row belongs to (docs/api.md section 5). */
import { and, eq, isNull } from "drizzle-orm";
import type { SqliteConnection } from "./connection.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { organizations } from "./schema.ts";

export interface Organization {
  id: number;
  key: string;
  name: string;
}

export interface OrganizationStore {
  /** The organisations in the config (removed ones are not listed). */
  list(): Promise<Organization[]>;
  /** By the handle config and CLI use (`--org`), or null (also for a removed one). */
  findByKey(key: string): Promise<Organization | null>;
  /** Whether register writes are enabled for the organisation (docs/api.md section 5.8). */
  writesEnabled(orgId: number): Promise<boolean>;
}

export function sqliteOrganizationStore({ db, sqlite }: SqliteConnection): Synchronous<OrganizationStore> {
  const writesEnabled = sqlite.prepare<{ enabled: number }, [number]>(
    "SELECT writes_enabled AS enabled FROM organizations WHERE id = ?1",
  );
  const columns = { id: organizations.id, key: organizations.key, name: organizations.name };
  return {
    list: () => db.select(columns).from(organizations).where(isNull(organizations.removedAt)).all(),
    findByKey: (key) =>
      db
        .select(columns)
        .from(organizations)
        .where(and(eq(organizations.key, key), isNull(organizations.removedAt)))
        .get() ?? null,
    writesEnabled: (orgId) => writesEnabled.get(orgId)?.enabled === 1,
  };
}
