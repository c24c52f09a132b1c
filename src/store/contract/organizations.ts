/** The organisations domain of the store contract: the tenants every other row belongs to (docs/api.md section 5). */

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
