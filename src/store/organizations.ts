import { eq } from "drizzle-orm";
import type { Store } from "./open.ts";
import { organizations } from "./schema.ts";

export function listOrganizations(store: Store): { id: number; key: string; name: string }[] {
  return store.db
    .select({ id: organizations.id, key: organizations.key, name: organizations.name })
    .from(organizations)
    .all();
}

export function findOrganizationByKey(store: Store, key: string): { id: number; key: string; name: string } | null {
  return (
    store.db
      .select({ id: organizations.id, key: organizations.key, name: organizations.name })
      .from(organizations)
      .where(eq(organizations.key, key))
      .get() ?? null
  );
}
