/**
 * The store every command opens: the SQLite file in `--data DIR` on a box, or
 * PostgreSQL when FIELDHUB_DATABASE_URL is set (a central, docs/fleet.md). `--data`
 * still names the process's own directory (serve's lock) on a central.
 */
import { databaseUrlVariable, openStoreAt, type Store, type StoreOptions } from "../store/index.ts";
import { CommandError } from "./args.ts";

/**
 * How long a central process holds the webhook messages it takes (docs/fleet.md,
 * "Webhook leases"): a process killed mid-delivery leaves its messages to the others
 * after this. Read with FIELDHUB_DATABASE_URL, because the store is chosen by the
 * environment alone; no effect on SQLite (one process, no leases).
 */
const webhookLeaseVariable = "FIELDHUB_WEBHOOK_LEASE_S";
const longestLeaseS = 3600;

export function openCommandStore(dataDir: string, options: StoreOptions = {}): Promise<Store> {
  const databaseUrl = process.env[databaseUrlVariable] ?? null;
  if (databaseUrl === null || databaseUrl === "") return openStoreAt(dataDir, options);
  return openStoreAt(dataDir, {
    ...options,
    databaseUrl,
    webhookLeaseMs: webhookLeaseMs(process.env[webhookLeaseVariable]),
  });
}

/** The variable's seconds as ms; unset or empty: the store's default (60 s). */
function webhookLeaseMs(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const seconds = Number(text.trim());
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > longestLeaseS) {
    throw new CommandError(`${webhookLeaseVariable}: a whole number of seconds from 1 to ${longestLeaseS}: ${text}`);
  }
  return seconds * 1000;
}
