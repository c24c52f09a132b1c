/**
 * The readings store on PostgreSQL (docs/fleet.md): history in month-partitioned
 * blocks plus a tail of plain rows that compaction merges into them, behind
 * ReadingStore (contract/readings.ts). Latest values are the
 * registers' columns (latest-values.ts): `record` moves them with the readings it
 * stores.
 */
import { storagePeriodOf } from "../../lib/storage-period.ts";
import {
  aggregatesOfSkipped,
  boundSeconds,
  type ImportCounts,
  type NewReading,
  type PruneOptions,
  type PruneResult,
  type ReadingStore,
  type ReadingsKeyset,
  readingEpochMs,
  rowsInFreePeriods,
  storedSeconds,
} from "../contract/readings.ts";
import { type BatchPruner, pruneInBatches } from "../shared/prune-in-batches.ts";
import { attachAggregates } from "./aggregates.ts";
import { defaultReadingsPerBlock, periodOf, periodSeconds } from "./blocks.ts";
import { type CompactionOptions, compactBefore } from "./compaction.ts";
import type { Sql } from "./connection.ts";
import { PendingLatest, setLatestIn } from "./latest-values.ts";
import { lockHistory } from "./locks.ts";
import { DecodedBlocks, page as readPage } from "./page.ts";
import { dropPartitionsBefore } from "./partitions.ts";
import { deleteOldestOf, registersBefore } from "./retention.ts";

export interface PostgresReadingStoreOptions extends CompactionOptions {
  /** Tail rows of a period are compacted this long after it ended (late readings still arrive; default 10 minutes, as on SQLite). */
  graceMs?: number;
  /** Latest values moved by `record` are written within this long (ms, default 1000; latest-values.ts). */
  latestFlushMs?: number;
}

/** SQLSTATE of a deadlock: a transaction PostgreSQL chose to abort, safe to run again. */
const deadlockDetected = "40P01";

/**
 * The readings store on PostgreSQL, with the two steps of its per-register retention
 * batches (registersWithReadingsBefore, deleteOldest) that its own tests drive.
 */
export interface PostgresReadingStore extends ReadingStore, BatchPruner {}

export function postgresReadingStore(sql: Sql, options: PostgresReadingStoreOptions = {}): PostgresReadingStore {
  const readingsPerBlock = options.readingsPerBlock ?? defaultReadingsPerBlock;
  const decoded = new DecodedBlocks();
  const latest = new PendingLatest(sql, options.latestFlushMs ?? 1000);

  function page(query: Parameters<ReadingStore["page"]>[0]) {
    return query.registerIds.length === 0
      ? Promise.resolve({ rows: [], hasMore: false })
      : readPage(sql, decoded, query);
  }

  /**
   * Stores a batch in one statement and moves each register's latest value forward.
   * Idempotent: the tail's key keeps the first reading of a (register, second), and
   * a second already in a block keeps the block's (page.ts, compaction.ts). Only
   * readings that were stored move the latest value (a resend does not), and only
   * when newer than the one held: LatestValues.advance's comparison; the values are
   * written within a second (latest-values.ts, PendingLatest). Rows go in key order,
   * so two processes inserting overlapping batches lock keys in the same order and
   * do not deadlock (one is retried if PostgreSQL still reports one).
   */
  function record(batch: NewReading[]): Promise<void> {
    return insert(batch, true);
  }

  /**
   * History import, and a site's forwarded readings on a central (docs/fleet.md), as
   * on SQLite (readings.ts): a reading is stored only when its register's storage
   * period holds none yet, so a resent batch stores nothing twice. The periods each
   * register already holds are read first, over the span the batch touches. Two
   * writers importing into the same period at once could each store one reading
   * there; a site forwards its registers' readings from one round at a time.
   */
  async function importReadings(
    batch: Parameters<ReadingStore["importReadings"]>[0],
    storageIntervalMs: Parameters<ReadingStore["importReadings"]>[1],
  ): Promise<ImportCounts> {
    const spans = new Map<number, { first: number; last: number; intervalMs: number }>();
    for (const [registerId, ts] of batch) {
      const intervalMs = storageIntervalMs.get(registerId);
      if (intervalMs === undefined) continue;
      const period = storagePeriodOf(ts, intervalMs);
      const span = spans.get(registerId);
      if (span === undefined) spans.set(registerId, { first: period, last: period, intervalMs });
      else {
        span.first = Math.min(span.first, period);
        span.last = Math.max(span.last, period);
      }
    }
    // The periods already held, read with one keyset walk per storage interval over
    // the span the batch touches (a forwarded batch covers minutes of many
    // registers: one round trip, not one per register).
    const occupied = new Map<number, Set<number>>();
    const byInterval = new Map<number, { registerIds: number[]; since: number; until: number }>();
    for (const [registerId, span] of spans) {
      occupied.set(registerId, new Set());
      const group = byInterval.get(span.intervalMs);
      const since = span.first * span.intervalMs;
      const until = (span.last + 1) * span.intervalMs;
      if (group === undefined) byInterval.set(span.intervalMs, { registerIds: [registerId], since, until });
      else {
        group.registerIds.push(registerId);
        group.since = Math.min(group.since, since);
        group.until = Math.max(group.until, until);
      }
    }
    for (const [intervalMs, group] of byInterval) {
      let after: ReadingsKeyset | null = null;
      for (;;) {
        const { rows, hasMore } = await page({ ...group, order: "asc", limit: 10_000, after });
        for (const row of rows) occupied.get(row.registerId)?.add(storagePeriodOf(row.ts, intervalMs));
        const tail = rows[rows.length - 1];
        if (!hasMore || tail === undefined) break;
        after = { ts: tail.ts, registerId: tail.registerId };
      }
    }
    const chosen = rowsInFreePeriods(batch, storageIntervalMs, (registerId) => occupied.get(registerId) ?? new Set());
    if (chosen.length > 0) {
      await record(
        chosen.map(([registerId, ts, rawValue, aggregate]) => ({
          registerId,
          ts,
          rawValue,
          aggregate: aggregate ?? null,
        })),
      );
    }
    const late = aggregatesOfSkipped(batch, chosen);
    if (late.length > 0) await attachAggregates(sql, late, readingsPerBlock);
    return { stored: chosen.length, skipped: batch.length - chosen.length };
  }

  /**
   * Ingest's write: stores the readings, then attaches the aggregates to their
   * readings (tail rows, or the blocks of a period compacted meanwhile:
   * attachAggregates); latest values come separately (setLatest), as on SQLite.
   */
  async function recordPolled(
    readings: Parameters<ReadingStore["recordPolled"]>[0],
    aggregates: Parameters<ReadingStore["recordPolled"]>[1] = [],
  ): Promise<void> {
    await insert(
      readings.map(([registerId, ts, rawValue]) => ({ registerId, ts, rawValue })),
      false,
    );
    if (aggregates.length > 0) await attachAggregates(sql, aggregates, readingsPerBlock);
  }

  /**
   * Each register's newest stored reading moves its latest value (when newer): the
   * same as advancing by every stored reading in turn, since advance keeps the newest.
   * A stored (register, second) holds the batch's first reading of it, the first in
   * key order (the sort is stable): found by binary search in the sorted columns.
   */
  function advanceLatest(
    batch: NewReading[],
    order: number[],
    registerIds: number[],
    times: number[],
    newest: { register_id: number; ts_s: number }[],
  ): void {
    for (const row of newest) {
      let low = 0;
      let high = registerIds.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        const id = registerIds[middle] as number;
        if (id < row.register_id || (id === row.register_id && (times[middle] as number) < row.ts_s)) low = middle + 1;
        else high = middle;
      }
      const reading = batch[order[low] as number] as NewReading;
      latest.advance({ registerId: reading.registerId, ts: reading.ts, rawValue: reading.rawValue ?? null });
    }
  }

  async function insert(batch: NewReading[], moveLatest: boolean): Promise<void> {
    if (batch.length === 0) return;
    const order = batch.map((_, index) => index);
    const seconds = batch.map((reading) => storedSeconds(reading.ts));
    order.sort(
      (a, b) =>
        (batch[a] as NewReading).registerId - (batch[b] as NewReading).registerId ||
        (seconds[a] as number) - (seconds[b] as number),
    );
    const registerIds = order.map((index) => (batch[index] as NewReading).registerId);
    const times = order.map((index) => seconds[index] as number);
    const raws = order.map((index) => (batch[index] as NewReading).rawValue ?? null);
    const aggregates = order.map((index) => (batch[index] as NewReading).aggregate ?? null);
    const mins = aggregates.map((aggregate) => aggregate?.rawMin ?? null);
    const maxes = aggregates.map((aggregate) => aggregate?.rawMax ?? null);
    const means = aggregates.map((aggregate) => aggregate?.rawMean ?? null);
    const samples = aggregates.map((aggregate) => aggregate?.samples ?? null);
    for (let attempt = 0; ; attempt++) {
      try {
        if (!moveLatest) {
          await sql`
            INSERT INTO history_tail (register_id, ts_s, raw_value, raw_min, raw_max, raw_mean, samples)
            SELECT * FROM unnest(${registerIds}::int[], ${times}::int[], ${raws}::float8[],
              ${mins}::float8[], ${maxes}::float8[], ${means}::float8[], ${samples}::int[])
            ON CONFLICT DO NOTHING`;
          return;
        }
        // Only the rows stored come back from the insert (a resent second does not): each register's newest.
        const newest = (await sql`
          WITH stored AS (
            INSERT INTO history_tail (register_id, ts_s, raw_value, raw_min, raw_max, raw_mean, samples)
            SELECT * FROM unnest(${registerIds}::int[], ${times}::int[], ${raws}::float8[],
              ${mins}::float8[], ${maxes}::float8[], ${means}::float8[], ${samples}::int[])
            ON CONFLICT DO NOTHING RETURNING register_id, ts_s)
          SELECT register_id, max(ts_s) AS ts_s FROM stored GROUP BY register_id`) as {
          register_id: number;
          ts_s: number;
        }[];
        advanceLatest(batch, order, registerIds, times, newest);
        return;
      } catch (error) {
        if (attempt >= 3 || (error as { errno?: string }).errno !== deadlockDetected) throw error;
      }
    }
  }

  /** The values as given, the one given last winning (as SQLite's), written at once: every central process reads them. */
  function setLatest(values: Parameters<ReadingStore["setLatest"]>[0]): Promise<void> {
    // Taken after what `record` moved before: that must not overwrite it later (as SQLite's set replaces the value held).
    for (const value of values) latest.forget(value.registerId);
    return setLatestIn(sql, values);
  }

  /** Writes the latest values `record` moved and has not written yet (latest-values.ts, PendingLatest). */
  function persistLatest(): Promise<void> {
    return latest.flush();
  }

  async function* scan(query: Parameters<ReadingStore["scan"]>[0]) {
    if (query.registerIds.length === 0) return;
    const pageSize = query.pageSize ?? 50_000;
    let after: ReadingsKeyset | null = null;
    for (;;) {
      const { rows, hasMore } = await page({ ...query, order: "asc", limit: pageSize, after });
      if (rows.length > 0) yield rows;
      const last = rows[rows.length - 1];
      if (!hasMore || last === undefined) return;
      after = { ts: last.ts, registerId: last.registerId };
    }
  }

  /** Each register's newest stored reading: its last block (a skip scan over the key) or a newer tail row. */
  async function newestTimes(): Promise<Map<number, number>> {
    const rows = (await sql`
      WITH RECURSIVE ids AS (
        (SELECT register_id AS id FROM history_blocks ORDER BY register_id LIMIT 1)
        UNION ALL
        SELECT (SELECT register_id FROM history_blocks WHERE register_id > ids.id ORDER BY register_id LIMIT 1)
          FROM ids WHERE ids.id IS NOT NULL)
      SELECT id, (SELECT last_s FROM history_blocks WHERE register_id = ids.id ORDER BY start_s DESC LIMIT 1) AS s
        FROM ids WHERE id IS NOT NULL
      UNION ALL
      SELECT register_id, max(ts_s) FROM history_tail GROUP BY register_id`) as { id: number; s: number }[];
    const times = new Map<number, number>();
    for (const { id, s } of rows) {
      const ms = s * 1000 + readingEpochMs;
      if ((times.get(id) ?? Number.NEGATIVE_INFINITY) < ms) times.set(id, ms);
    }
    return times;
  }

  async function newestBetween(registerId: number, fromMs: number, toMs: number): Promise<number | null> {
    const query = {
      registerIds: [registerId],
      since: fromMs,
      until: toMs,
      order: "desc" as const,
      limit: 1,
      after: null,
    };
    return (await page(query)).rows[0]?.ts ?? null;
  }

  function registersWithReadingsBefore(cutoffMs: number): Promise<number[]> {
    return registersBefore(sql, boundSeconds(cutoffMs));
  }

  function deleteOldest(registerId: number, cutoffMs: number, maxRows: number) {
    return deleteOldestOf(sql, registerId, boundSeconds(cutoffMs), maxRows, readingsPerBlock);
  }

  /**
   * Retention (docs/fleet.md, "Retention"): each month wholly before the cutoff
   * goes at once with one DROP TABLE of its partition (its space back at once, no
   * dead rows), then the edge month in the shared per-register batches, the block
   * across the cutoff cut exactly.
   */
  async function prune(cutoffMs: number, pruneOptions?: PruneOptions): Promise<PruneResult> {
    const began = performance.now();
    const dropped = await sql.begin(async (tx) => {
      await lockHistory(tx);
      return await dropPartitionsBefore(tx, boundSeconds(cutoffMs));
    });
    const result = await pruneInBatches({ registersWithReadingsBefore, deleteOldest }, cutoffMs, pruneOptions);
    return { ...result, deleted: dropped + result.deleted, ms: performance.now() - began };
  }

  /**
   * Compaction: merges the tail rows of the periods that ended at least the grace
   * before `nowMs` into blocks. Returns the periods compacted (0 when another
   * process is compacting: it takes them).
   */
  async function closePeriods(nowMs: number): Promise<number> {
    const end = periodOf(storedSeconds(nowMs - (options.graceMs ?? 600_000))) * periodSeconds;
    await latest.flush();
    return (await compactBefore(sql, end, options)) ?? 0;
  }

  return {
    page,
    record,
    importReadings,
    recordPolled,
    setLatest,
    persistLatest,
    scan,
    newestTimes,
    newestBetween,
    registersWithReadingsBefore,
    deleteOldest,
    prune,
    closePeriods,
  };
}
