/** Small values the store keeps for itself, such as signing secrets. */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Store } from "./open.ts";
import { storeMeta } from "./schema.ts";

/** Returns the named secret, creating a random one on first use (kept across restarts). */
export function storeSecret(store: Store, name: string): Buffer {
  const key = `secret:${name}`;
  const existing = store.db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get();
  if (existing !== undefined) return Buffer.from(existing.value, "base64");
  const value = randomBytes(32).toString("base64");
  store.db.insert(storeMeta).values({ key, value }).onConflictDoNothing().run();
  // Another process may have won the race: read back what is stored.
  const stored = store.db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get();
  return Buffer.from(stored?.value ?? value, "base64");
}
