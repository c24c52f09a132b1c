/**
 * The readings store (../contract/readings.ts) on SQLite's block history engine
 * (history/): every reading operation goes through `openBlockHistory`, latest
 * values through LatestValues. Nothing outside src/store/ knows about blocks or
 * the tail.
 */

import { storagePeriodOf } from "../../lib/storage-period.ts";
import {
  aggregatesOfSkipped,
  type NewReading,
  type ReadingStore,
  type ReadingsKeyset,
  rowsInFreePeriods,
} from "../contract/readings.ts";
import { type BatchPruner, pruneInBatches } from "../shared/prune-in-batches.ts";
import type { SqliteConnection } from "./connection.ts";
import { type BlockHistoryOptions, openBlockHistory } from "./history/history.ts";
import { convertLegacyReadings } from "./history/upgrade.ts";
import type { LatestValues } from "./latest-values.ts";

/** Latest values are written to disk at most this often besides a period close and a clean close. */
const persistLatestEveryMs = 3_600_000;

/** The readings store on SQLite, with the two steps of its retention batches (benchmarks time them). */
export interface SqliteReadingStore extends ReadingStore, BatchPruner {}

/**
 * The engine answers synchronously: each operation is `async` only to fit the
 * interface, and runs to its end (one transaction where it writes) at the call.
 */
export function sqliteReadingStore(
  connection: SqliteConnection,
  latest: LatestValues,
  options: BlockHistoryOptions = {},
): SqliteReadingStore {
  const { sqlite } = connection;
  const registerIds = sqlite.prepare<{ id: number }, []>("SELECT id FROM registers ORDER BY id");
  // An import beside `serve` may store readings newer than the latest value held here.
  const followLatest = () => {
    for (const row of history.latest(registerIds.all().map((register) => register.id))) latest.advance(row);
  };
  const history = openBlockHistory(sqlite, { ...options, onOtherWriter: followLatest });
  convertLegacyReadings(sqlite, history, Date.now());
  let latestPersistedAt = Date.now();

  // A crash loses the latest values read since they were last persisted: the
  // newest stored reading stands in where it is newer.
  for (const row of history.latest(registerIds.all().map((register) => register.id))) latest.advance(row);

  function persistLatest(): void {
    latest.persist();
    latestPersistedAt = Date.now();
  }

  const registersWithReadingsBefore = async (cutoffMs: number) => history.registersWithReadingsBefore(cutoffMs);
  const deleteOldest = async (registerId: number, cutoffMs: number, maxRows: number) =>
    history.pruneRegister(registerId, cutoffMs, maxRows);

  return {
    page: async (query) => (query.registerIds.length === 0 ? { rows: [], hasMore: false } : history.page(query)),

    async record(batch) {
      const stored: NewReading[] = [];
      history.record(batch, stored);
      // Only readings that were stored move the latest value (a resend of a stored second does not).
      for (const reading of stored) {
        latest.advance({ registerId: reading.registerId, ts: reading.ts, rawValue: reading.rawValue ?? null });
      }
    },

    async *scan(query) {
      if (query.registerIds.length === 0) return;
      const pageSize = query.pageSize ?? 50_000;
      let after: ReadingsKeyset | null = null;
      for (;;) {
        const { rows, hasMore } = history.page({ ...query, order: "asc", limit: pageSize, after });
        if (rows.length > 0) yield rows;
        const last = rows[rows.length - 1];
        if (!hasMore || last === undefined) return;
        after = { ts: last.ts, registerId: last.registerId };
      }
    },

    async importReadings(batch, storageIntervalMs) {
      // Periods that ended count as closed when nothing is open yet (a fresh store):
      // imported history of past days then goes straight into blocks instead of
      // through the tail, whose freed pages would stay in the file.
      let newest = Number.NEGATIVE_INFINITY;
      for (const row of batch) if (row[1] > newest) newest = row[1];
      if (batch.length > 0) history.openAfter(newest, Date.now());
      // The periods a register already holds, read once per register over the span the batch touches.
      const occupiedPeriods = (registerId: number, intervalMs: number, periods: number[]) => {
        const occupied = new Set<number>();
        let first = Number.POSITIVE_INFINITY;
        let last = Number.NEGATIVE_INFINITY;
        for (const period of periods) {
          if (period < first) first = period;
          if (period > last) last = period;
        }
        const window = { registerIds: [registerId], since: first * intervalMs, until: (last + 1) * intervalMs };
        let after: ReadingsKeyset | null = null;
        for (;;) {
          const { rows, hasMore } = history.page({ ...window, order: "asc", limit: 10_000, after });
          for (const row of rows) occupied.add(storagePeriodOf(row.ts, intervalMs));
          const tail = rows[rows.length - 1];
          if (!hasMore || tail === undefined) return occupied;
          after = { ts: tail.ts, registerId: tail.registerId };
        }
      };
      const chosen = rowsInFreePeriods(batch, storageIntervalMs, occupiedPeriods);
      const stored: NewReading[] = [];
      const late = aggregatesOfSkipped(batch, chosen);
      if (chosen.length > 0 || late.length > 0) {
        history.record(
          chosen.map((row) => ({ registerId: row[0], ts: row[1], rawValue: row[2], aggregate: row[3] ?? null })),
          stored,
          late,
        );
      }
      for (const reading of stored) {
        latest.advance({ registerId: reading.registerId, ts: reading.ts, rawValue: reading.rawValue ?? null });
      }
      return { stored: stored.length, skipped: batch.length - stored.length };
    },

    async recordPolled(readings, aggregates = []) {
      if (readings.length > 0 || aggregates.length > 0) {
        history.record(
          readings.map((row) => ({ registerId: row[0], ts: row[1], rawValue: row[2] })),
          undefined,
          aggregates,
        );
      }
    },

    async setLatest(values) {
      for (const value of values) latest.set(value);
    },

    async newestTimes() {
      const times = new Map<number, number>();
      for (const row of history.latest(registerIds.all().map((register) => register.id))) {
        times.set(row.registerId, row.ts);
      }
      return times;
    },

    async newestBetween(registerId, fromMs, toMs) {
      const query = {
        registerIds: [registerId],
        since: fromMs,
        until: toMs,
        order: "desc" as const,
        limit: 1,
        after: null,
      };
      return history.page(query).rows[0]?.ts ?? null;
    },

    /**
     * One file, no partitions: retention deletes register by register in batches.
     * Freed pages are reused by SQLite for new readings, so the file stops growing
     * once retention is reached; it is not vacuumed (a VACUUM rewrites the whole
     * file and blocks writers while it runs).
     */
    prune: (cutoffMs, options) => pruneInBatches({ registersWithReadingsBefore, deleteOldest }, cutoffMs, options),
    registersWithReadingsBefore,
    deleteOldest,

    async closePeriods(nowMs) {
      const closed = await history.closePeriods(nowMs);
      if (closed > 0 || Date.now() - latestPersistedAt >= persistLatestEveryMs) persistLatest();
      return closed;
    },

    persistLatest: async () => persistLatest(),
  };
}
