/**
 * The PostgreSQL schema (docs/fleet.md): the tables the PostgreSQL store has so far,
 * with the same names and columns as their SQLite counterparts in ../schema.ts
 * (drizzle keeps one schema module per dialect; test/store/postgres/schema-drift.test.ts
 * compares the two). `npx drizzle-kit generate --config drizzle.pg.config.ts`
 * writes a migration from it into ./migrations.
 *
 * What drizzle cannot say is added to the generated SQL before it is committed:
 * history_blocks is partitioned by month of start_s (migration 0000), so retention
 * drops whole partitions; the partitions themselves are created on demand
 * (partitions.ts).
 */
import { customType, doublePrecision, integer, pgTable, primaryKey } from "drizzle-orm/pg-core";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Closed periods (UTC days) as encoded blocks (../history/block.ts), one or more per
 * register and period. Keyed by (register_id, start_s) so a page reads one
 * register's blocks in time order from the key; partitioned by month of start_s.
 */
export const historyBlocks = pgTable(
  "history_blocks",
  {
    period: integer("period").notNull(),
    registerId: integer("register_id").notNull(),
    /** Stored seconds (readingEpochMs) of the block's first reading. */
    startSeconds: integer("start_s").notNull(),
    lastSeconds: integer("last_s").notNull(),
    count: integer("count").notNull(),
    data: bytea("data").notNull(),
  },
  (table) => [primaryKey({ columns: [table.registerId, table.startSeconds] })],
);

/**
 * Readings not yet compacted into blocks, as forwarded: one row per (register,
 * second); the key makes a resent batch store nothing twice (the first value wins).
 */
export const historyTail = pgTable(
  "history_tail",
  {
    registerId: integer("register_id").notNull(),
    epochSeconds: integer("ts_s").notNull(),
    rawValue: doublePrecision("raw_value"),
  },
  (table) => [primaryKey({ columns: [table.registerId, table.epochSeconds] })],
);
