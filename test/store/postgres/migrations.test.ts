/**
 * PostgreSQL migrations: embedded (every journal entry has its SQL), applied at
 * open, once when several processes open a new database at the same moment, a
 * no-op the second time; what they create matches the pg-core schema, with
 * history_blocks partitioned by range.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { is } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { openPostgresStore } from "../../../src/store/postgres/index.ts";
import { postgresMigrationJournal, postgresMigrationSql } from "../../../src/store/postgres/migrations/index.ts";
import * as pgSchema from "../../../src/store/postgres/schema.ts";
import {
  type PrivatePostgres,
  postgresAvailable,
  postgresMissingReason,
  startPostgres,
} from "../../harness/postgres.ts";

const migrationsDir = join(import.meta.dir, "..", "..", "..", "src", "store", "postgres", "migrations");

test("every PostgreSQL migration in the journal is embedded, and the embedded journal is the one on disk", () => {
  const onDisk = JSON.parse(readFileSync(join(migrationsDir, "meta", "_journal.json"), "utf8")) as {
    entries: { tag: string }[];
  };
  expect(postgresMigrationJournal.entries.map((e) => e.tag)).toEqual(onDisk.entries.map((e) => e.tag));
  for (const { tag } of onDisk.entries) {
    expect(postgresMigrationSql[tag]).toBe(readFileSync(join(migrationsDir, `${tag}.sql`), "utf8"));
  }
});

let pg: PrivatePostgres | null = null;
beforeAll(async () => {
  if (postgresAvailable) pg = await startPostgres();
});
afterAll(async () => {
  await pg?.stop();
});

describe.skipIf(!postgresAvailable)(`applied at open (${postgresMissingReason})`, () => {
  test("three processes opening a new database at once apply each migration once; the tables match the schema", async () => {
    const url = await (pg as PrivatePostgres).database("migrations");
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(url)));
    await Promise.all(stores.map((store) => store.close()));
    const again = await openPostgresStore(url);
    await again.close();
    const sql = new Bun.SQL(url, { max: 1 });
    try {
      const applied = (await sql`SELECT tag FROM fieldhub_migrations ORDER BY tag`) as { tag: string }[];
      expect(applied.map((row) => row.tag)).toEqual(postgresMigrationJournal.entries.map((e) => e.tag));
      const configs = Object.values(pgSchema)
        .filter((value) => is(value, PgTable))
        .map((table) => getTableConfig(table as PgTable))
        .sort((a, b) => a.name.localeCompare(b.name));
      const expected = configs.flatMap((config) =>
        config.columns.map((c) => [config.name, c.name, c.getSQLType(), c.notNull ? "NO" : "YES"]),
      );
      const names = configs.map((config) => config.name);
      const columns = (
        (await sql`
        SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = ANY(${names}::text[])
         ORDER BY table_name, ordinal_position`) as {
          table_name: string;
          column_name: string;
          data_type: string;
          is_nullable: string;
        }[]
      )
        // Stable: each table's columns stay in their order, tables in the schema's.
        .sort((a, b) => names.indexOf(a.table_name) - names.indexOf(b.table_name));
      expect(columns.map((c) => [c.table_name, c.column_name, c.data_type, c.is_nullable])).toEqual(expected);
      const [kind] = (await sql`SELECT relkind FROM pg_class WHERE relname = 'history_blocks'`) as {
        relkind: string;
      }[];
      expect(kind?.relkind).toBe("p");
    } finally {
      await sql.close();
    }
  });
});
