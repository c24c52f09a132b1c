/**
 * Month partitions of history_blocks (docs/fleet.md, "Retention"): created on
 * demand by the writers of blocks (compaction, the retention's edge cut), which
 * hold the history lock (locks.ts), so two processes never race to create one;
 * retention drops a whole month with DROP TABLE instead of deleting its rows.
 */
import { readingEpochMs } from "../contract/readings.ts";
import type { Sql } from "./connection.ts";

/** The month a stored second falls in: its first and next month's first stored second, and the partition's name. */
export function monthOf(seconds: number): { from: number; to: number; name: string } {
  const date = new Date(readingEpochMs + seconds * 1000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const from = Math.floor((Date.UTC(year, month, 1) - readingEpochMs) / 1000);
  const to = Math.floor((Date.UTC(year, month + 1, 1) - readingEpochMs) / 1000);
  return { from, to, name: `history_blocks_y${year}m${String(month + 1).padStart(2, "0")}` };
}

/** The partitions that exist, with their bounds in stored seconds. */
export async function partitions(tx: Sql): Promise<{ name: string; from: number; to: number }[]> {
  const rows = (await tx`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'history_blocks'::regclass ORDER BY c.relname`) as { name: string }[];
  return rows.flatMap(({ name }) => {
    const match = /^history_blocks_y(\d{4})m(\d{2})$/.exec(name);
    if (match === null) return [];
    const first = Math.floor((Date.UTC(Number(match[1]), Number(match[2]) - 1, 1) - readingEpochMs) / 1000);
    return [{ ...monthOf(first) }];
  });
}

/** Creates the partitions the given block starts fall in, where missing. Call under the history lock. */
export async function ensurePartitions(tx: Sql, startSeconds: Iterable<number>): Promise<void> {
  const wanted = new Map<string, { from: number; to: number; name: string }>();
  for (const seconds of startSeconds) {
    const month = monthOf(seconds);
    wanted.set(month.name, month);
  }
  if (wanted.size === 0) return;
  const existing = new Set((await partitions(tx)).map((partition) => partition.name));
  for (const month of wanted.values()) {
    if (existing.has(month.name)) continue;
    // A row under toast_tuple_target stays in the heap page; the data is deflated
    // already, so EXTERNAL keeps PostgreSQL from trying to compress it again.
    await tx.unsafe(
      `CREATE TABLE ${month.name} PARTITION OF history_blocks FOR VALUES FROM (${month.from}) TO (${month.to})
         WITH (toast_tuple_target = 8160)`,
    );
    await tx.unsafe(`ALTER TABLE ${month.name} ALTER COLUMN data SET STORAGE EXTERNAL`);
  }
}

/** Drops the partitions wholly before `cutoff` (stored seconds); returns how many readings they held. Call under the history lock. */
export async function dropPartitionsBefore(tx: Sql, cutoff: number): Promise<number> {
  let dropped = 0;
  for (const partition of await partitions(tx)) {
    if (partition.to > cutoff) continue;
    const [row] = (await tx.unsafe(`SELECT coalesce(sum(count), 0)::int8 AS n FROM ${partition.name}`)) as {
      n: string | number;
    }[];
    dropped += Number(row?.n ?? 0);
    await tx.unsafe(`DROP TABLE ${partition.name}`);
  }
  return dropped;
}
