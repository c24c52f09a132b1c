/**
 * The store every command opens: the SQLite file in `--data DIR` on a box, or
 * PostgreSQL when FIELDHUB_DATABASE_URL is set (a central, docs/fleet.md). `--data`
 * still names the process's own directory (serve's lock) on a central.
 */
import { databaseUrlVariable, openStoreAt, type Store, type StoreOptions } from "../store/index.ts";

export function openCommandStore(dataDir: string, options: StoreOptions = {}): Promise<Store> {
  return openStoreAt(dataDir, { ...options, databaseUrl: process.env[databaseUrlVariable] ?? null });
}
