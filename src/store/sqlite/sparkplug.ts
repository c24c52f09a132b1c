/** A Sparkplug edge node's state in store_meta (contract/sparkplug.ts). */
import { eq } from "drizzle-orm";
import { parseSparkplugState, type SparkplugStore, sparkplugStateKey } from "../contract/sparkplug.ts";
import type { SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { storeMeta } from "./schema.ts";

export function sqliteSparkplugStore({ db }: SqliteConnection): SparkplugStore {
  return resolvedOperations<SparkplugStore>({
    stateOf(edgeNode) {
      const key = sparkplugStateKey(edgeNode);
      return parseSparkplugState(
        db.select({ value: storeMeta.value }).from(storeMeta).where(eq(storeMeta.key, key)).get()?.value,
      );
    },
    saveState(edgeNode, state) {
      const value = JSON.stringify(state);
      db.insert(storeMeta)
        .values({ key: sparkplugStateKey(edgeNode), value })
        .onConflictDoUpdate({ target: storeMeta.key, set: { value } })
        .run();
    },
  });
}
