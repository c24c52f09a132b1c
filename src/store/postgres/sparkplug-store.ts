/** A Sparkplug edge node's state in store_meta on PostgreSQL, as ../sqlite/sparkplug.ts. */
import { parseSparkplugState, type SparkplugStore, sparkplugStateKey } from "../contract/sparkplug.ts";
import type { Sql } from "./connection.ts";
import { firstOf } from "./rows.ts";

export function postgresSparkplugStore(sql: Sql): SparkplugStore {
  return {
    async stateOf(edgeNode) {
      const key = sparkplugStateKey(edgeNode);
      const row = await firstOf<{ value: string }>(sql`SELECT value FROM store_meta WHERE key = ${key}`);
      return parseSparkplugState(row?.value);
    },
    async saveState(edgeNode, state) {
      const value = JSON.stringify(state);
      await sql`
        INSERT INTO store_meta (key, value) VALUES (${sparkplugStateKey(edgeNode)}, ${value})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    },
  };
}
