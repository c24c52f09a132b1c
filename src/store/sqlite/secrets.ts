/** Small values the store keeps for itself: named secrets (the readings cursor's key, for example). */
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { SecretStore } from "../contract/secrets.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { storeMeta } from "./schema.ts";

export function sqliteSecretStore({ db }: SqliteConnection): SecretStore {
  const read = (key: string) =>
    db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get();
  return resolvedOperations<SecretStore>({
    getOrCreate(name) {
      const key = `secret:${name}`;
      const existing = read(key);
      if (existing !== undefined) return Buffer.from(existing.value, "base64");
      const value = randomBytes(32).toString("base64");
      db.insert(storeMeta).values({ key, value }).onConflictDoNothing().run();
      // Another process may have won the race: read back what is stored.
      return Buffer.from(read(key)?.value ?? value, "base64");
    },
  });
}
