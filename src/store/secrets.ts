/** Small values the store keeps for itself: named secrets (the readings cursor's key, for example). */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { SqliteConnection } from "./connection.ts";
import type { Synchronous } from "./resolved-operations.ts";
import { storeMeta } from "./schema.ts";

export interface SecretStore {
  /** Returns the named secret, creating a random one on first use (kept across restarts). */
  getOrCreate(name: string): Promise<Buffer>;
}

export function sqliteSecretStore({ db }: SqliteConnection): Synchronous<SecretStore> {
  const read = (key: string) =>
    db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get();
  return {
    getOrCreate(name) {
      const key = `secret:${name}`;
      const existing = read(key);
      if (existing !== undefined) return Buffer.from(existing.value, "base64");
      const value = randomBytes(32).toString("base64");
      db.insert(storeMeta).values({ key, value }).onConflictDoNothing().run();
      // Another process may have won the race: read back what is stored.
      return Buffer.from(read(key)?.value ?? value, "base64");
    },
  };
}
