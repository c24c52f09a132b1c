/** Organisations on PostgreSQL, as ../organizations.ts: removed ones are neither listed nor found. */
import type { Organization, OrganizationStore } from "../organizations.ts";
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

export class PgOrganizationStore implements OrganizationStore {
  constructor(private readonly sql: Sql) {}

  list(): Promise<Organization[]> {
    return rowsOf(this.sql`SELECT id, key, name FROM organizations WHERE removed_at IS NULL ORDER BY id`);
  }

  findByKey(key: string): Promise<Organization | null> {
    return firstOf(this.sql`SELECT id, key, name FROM organizations WHERE key = ${key} AND removed_at IS NULL`);
  }

  async writesEnabled(orgId: number): Promise<boolean> {
    const row = await firstOf<{ enabled: boolean }>(
      this.sql`SELECT writes_enabled AS enabled FROM organizations WHERE id = ${orgId}`,
    );
    return row?.enabled === true;
  }
}
