/** Organisations: the tenants every other row belongs to (docs/api.md section 5). */
import { and, eq, isNull } from "drizzle-orm";
import type { OrganizationStore } from "../contract/organizations.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { organizations } from "./schema.ts";

export function sqliteOrganizationStore({ db, sqlite }: SqliteConnection): OrganizationStore {
  const writesEnabled = sqlite.prepare<{ enabled: number }, [number]>(
    "SELECT writes_enabled AS enabled FROM organizations WHERE id = ?1",
  );
  const columns = { id: organizations.id, key: organizations.key, name: organizations.name };
  return resolvedOperations<OrganizationStore>({
    list: () => db.select(columns).from(organizations).where(isNull(organizations.removedAt)).all(),
    findByKey: (key) =>
      db
        .select(columns)
        .from(organizations)
        .where(and(eq(organizations.key, key), isNull(organizations.removedAt)))
        .get() ?? null,
    writesEnabled: (orgId) => writesEnabled.get(orgId)?.enabled === 1,
  });
}
