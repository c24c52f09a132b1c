/**
 * One schema, two engines (docs/fleet.md, "One schema source"): drizzle keeps one
 * schema module per dialect, so the SQLite schema (src/store/sqlite/schema.ts) and the
 * PostgreSQL one (src/store/postgres/schema.ts) are compared here. A table on both
 * has the same columns, nullability and matching types; every SQLite table is on
 * PostgreSQL, or listed below as not yet there or SQLite's alone, so a new table or
 * column on one side fails this test until the other side (or this list) says so.
 */
import { describe, expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { PgTable, getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import * as pgSchema from "../../../src/store/postgres/schema.ts";
import * as sqliteSchema from "../../../src/store/sqlite/schema.ts";

/** Tables the PostgreSQL store does not have yet (none left, docs/fleet.md "Plan"). */
const notYetOnPostgres: string[] = [];

/** SQLite's alone: how one process follows another's writes to its in-memory tail and open period; PostgreSQL keeps no such copy. */
const sqliteOnly = ["history_generation", "history_state"];

/** PostgreSQL's alone: the counters every central process shares; one SQLite process keeps them in memory (src/store/memory-rate-limits.ts). */
const postgresOnly = ["rate_limits"];

/** PostgreSQL's alone, by table: a message's lease, which only several processes sharing one outbox need (docs/fleet.md, "Webhook leases"). */
const postgresOnlyColumns: Record<string, string[]> = {
  webhook_deliveries: ["lease_owner", "lease_until"],
  // A reading's aggregate, set in place when its period ends (postgres/aggregates.ts); SQLite's tail is append-only.
  history_tail: ["raw_min", "raw_max", "raw_mean", "samples"],
};

/** SQLite's alone, by table: an aggregate carried on a later tail row (history/tail-aggregate.ts). */
const sqliteOnlyColumns: Record<string, string[]> = { history_tail: ["agg"] };

/** The PostgreSQL type a SQLite column type stands for. */
const typeOnPostgres: Record<string, string[]> = {
  integer: ["integer", "bigint", "boolean", "timestamp with time zone"],
  real: ["double precision"],
  text: ["text", "jsonb"],
  blob: ["bytea"],
};

type Column = { name: string; type: string; notNull: boolean };

const sqliteTables = new Map<string, Column[]>();
for (const value of Object.values(sqliteSchema)) {
  if (!is(value, SQLiteTable)) continue;
  const config = sqliteConfig(value);
  sqliteTables.set(
    config.name,
    config.columns.map((c) => ({ name: c.name, type: c.getSQLType(), notNull: c.notNull })),
  );
}
const pgTables = new Map<string, Column[]>();
for (const value of Object.values(pgSchema)) {
  if (!is(value, PgTable)) continue;
  const config = pgConfig(value);
  pgTables.set(
    config.name,
    config.columns.map((c) => ({ name: c.name, type: c.getSQLType(), notNull: c.notNull })),
  );
}

describe("the SQLite and PostgreSQL schemas", () => {
  test("every SQLite table is on PostgreSQL, not yet there, or SQLite's alone; PostgreSQL's own tables are listed", () => {
    const accounted = new Set([...pgTables.keys(), ...notYetOnPostgres, ...sqliteOnly]);
    expect([...sqliteTables.keys()].filter((name) => !accounted.has(name))).toEqual([]);
    expect([...pgTables.keys()].filter((name) => !sqliteTables.has(name) && !postgresOnly.includes(name))).toEqual([]);
    expect(postgresOnly.filter((name) => sqliteTables.has(name))).toEqual([]);
    expect(notYetOnPostgres.filter((name) => pgTables.has(name))).toEqual([]);
  });

  test("a table on both has the same columns, nullability and matching types", () => {
    expect(pgTables.size).toBeGreaterThan(0);
    for (const [name, allPgColumns] of pgTables) {
      if (postgresOnly.includes(name)) continue;
      const own = postgresOnlyColumns[name] ?? [];
      const pgColumns = allPgColumns.filter((c) => !own.includes(c.name));
      expect(own.filter((column) => !allPgColumns.some((c) => c.name === column))).toEqual([]);
      const sqliteOwn = sqliteOnlyColumns[name] ?? [];
      const allSqliteColumns = sqliteTables.get(name) ?? [];
      expect(sqliteOwn.filter((column) => !allSqliteColumns.some((c) => c.name === column))).toEqual([]);
      const sqliteColumns = allSqliteColumns.filter((c) => !sqliteOwn.includes(c.name));
      expect({ name, columns: pgColumns.map((c) => [c.name, c.notNull]) }).toEqual({
        name,
        columns: sqliteColumns.map((c) => [c.name, c.notNull]),
      });
      for (const column of sqliteColumns) {
        const pgType = pgColumns.find((c) => c.name === column.name)?.type ?? "";
        expect({ table: name, column: column.name, ok: (typeOnPostgres[column.type] ?? []).includes(pgType) }).toEqual({
          table: name,
          column: column.name,
          ok: true,
        });
      }
    }
  });
});
