/**
 * Organisations on PostgreSQL, read as ../organizations.ts reads them. The rows are
 * written by the inventory sync, which comes to PostgreSQL with the inventory
 * domain (docs/fleet.md); the outbox refers to them.
 */
import type { OrganizationStore } from "../organizations.ts";
import type { Sql } from "./connection.ts";

type Organization = Awaited<ReturnType<OrganizationStore["list"]>>[number];

export class PgOrganizationStore implements OrganizationStore {
  constructor(private readonly sql: Sql) {}

  async list(): Promise<Organization[]> {
    return (await this.sql`
      SELECT id, key, name FROM organizations WHERE removed_at IS NULL ORDER BY id`) as Organization[];
  }

  async findByKey(key: string): Promise<Organization | null> {
    const [row] = (await this.sql`
      SELECT id, key, name FROM organizations WHERE key = ${key} AND removed_at IS NULL`) as Organization[];
    return row ?? null;
  }

  async writesEnabled(orgId: number): Promise<boolean> {
    const [row] = (await this.sql`SELECT writes_enabled AS enabled FROM organizations WHERE id = ${orgId}`) as {
      enabled: boolean;
    }[];
    return row?.enabled === true;
  }
}
