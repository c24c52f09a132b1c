/**
 * The PostgreSQL connection behind a store: a pool of Bun's built-in client
 * (Bun.SQL) and the embedded migrations, applied at open. Only the store's own
 * PostgreSQL code uses it.
 */
import { createHash } from "node:crypto";
import { postgresMigrationJournal, postgresMigrationSql } from "./migrations/index.ts";

export type Sql = Bun.SQL;

export interface PostgresOptions {
  /** Connections in the pool (default 4). */
  max?: number;
}

/** Any id: keys the advisory lock the migrations are applied under. */
const migrationLockKey = 0x66_68_6d_67; // "fhmg"

/**
 * Opens a pool on `url` (postgres://...) and applies the migrations not yet
 * applied. Several central processes may start at once: the migrations run in one
 * transaction under an advisory lock, so one applies them and the others find them
 * applied. drizzle's own migrator takes no such lock, hence this one (its
 * bookkeeping table is `fieldhub_migrations`).
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<Sql> {
  const sql = openPool(url, options.max ?? 4);
  try {
    await applyMigrations(sql);
  } catch (error) {
    await sql.close();
    throw error;
  }
  return sql;
}

/**
 * A pool without migrations. `settings` are session settings of its connections:
 * the rate-limit counters use a pool of their own with synchronous_commit off
 * (rate-limit-store.ts).
 */
export function openPool(url: string, max: number, settings: Record<string, string> = {}): Sql {
  return new Bun.SQL(url, {
    max,
    // The store's statements are few and prepared once per connection; a custom plan
    // for every execution cost more than running a page (docs/benchmarks.md,
    // "Readings on PostgreSQL"), and partitions are pruned at run time either way.
    connection: { plan_cache_mode: "force_generic_plan", application_name: "fieldhub", ...settings },
  });
}

async function applyMigrations(sql: Sql): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${migrationLockKey})`;
    await tx`CREATE TABLE IF NOT EXISTS fieldhub_migrations (
      tag text PRIMARY KEY, hash text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
    const applied = new Set(((await tx`SELECT tag FROM fieldhub_migrations`) as { tag: string }[]).map((r) => r.tag));
    for (const { tag } of postgresMigrationJournal.entries) {
      if (applied.has(tag)) continue;
      const text = postgresMigrationSql[tag];
      if (text === undefined) throw new Error(`PostgreSQL migration ${tag} is in the journal but not embedded`);
      for (const statement of text.split("--> statement-breakpoint")) {
        if (statement.trim() !== "") await tx.unsafe(statement);
      }
      const hash = createHash("sha256").update(text).digest("hex");
      await tx`INSERT INTO fieldhub_migrations (tag, hash) VALUES (${tag}, ${hash})`;
    }
  });
}
