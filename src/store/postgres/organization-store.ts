/** Organisations on PostgreSQL, as ../sqlite/organizations.ts: removed ones are neither listed nor found. */
import type { Organization, OrganizationStore } from "../contract/organizations.ts";
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

export function postgresOrganizationStore(sql: Sql): OrganizationStore {
  function list(): Promise<Organization[]> {
    return rowsOf(sql`SELECT id, key, name FROM organizations WHERE removed_at IS NULL ORDER BY id`);
  }

  function findByKey(key: string): Promise<Organization | null> {
    return firstOf(sql`SELECT id, key, name FROM organizations WHERE key = ${key} AND removed_at IS NULL`);
  }

  async function writesEnabled(orgId: number): Promise<boolean> {
    const row = await firstOf<{ enabled: boolean }>(
      sql`SELECT writes_enabled AS enabled FROM organizations WHERE id = ${orgId}`,
    );
    return row?.enabled === true;
  }

  return { list, findByKey, writesEnabled };
}
