/**
 * Reading history: writes, and the keyset-paged reads behind
 * GET /devices/{id}/readings (spec section 4, rules 1 to 3).
 *
 * Rows are clustered by (register, time). One register's page is a plain range
 * scan. A page over several registers must come out in time order across them, so
 * it is read in time slabs: each slab asks every register for its rows in a short
 * time span and sorts only those, and the span adapts to the density found. The
 * cost of a page therefore follows the page size, not the length of the window.
 */
import { storagePeriodOf } from "../lib/storage-period.ts";
import type { SqliteConnection } from "./connection.ts";

/** Readings in and out carry Unix milliseconds; the table keeps seconds since this epoch (schema.ts). */
export type ReadingRow = { registerId: number; ts: number; rawValue: number | null };
export type NewReading = { registerId: number; ts: number; rawValue?: number | null };
/** A reading as ingest queues it: [register id, ts in Unix ms, raw value]; a tuple keeps the hot path lean. */
export type ReadingTuple = [registerId: number, ts: number, rawValue: number | null];
/** A register's newest value read, whether or not its reading is stored. */
export type LatestValue = { registerId: number; ts: number; rawValue: number | null };

/** 2020-01-01T00:00:00Z: stored reading times count whole seconds from here. */
export const readingEpochMs = 1_577_836_800_000;

/** A reading's time as stored: whole seconds since the epoch, rounded down. */
export function storedSeconds(ms: number): number {
  return Math.floor((ms - readingEpochMs) / 1000);
}

/**
 * A window bound in ms as a bound on stored seconds: the first stored second at
 * or after it. Inclusive `>= since` and exclusive `< until` both hold exactly
 * with it, since a stored second s stands for the instant epoch + s x 1000 ms.
 */
export function boundSeconds(ms: number): number {
  return Math.ceil((ms - readingEpochMs) / 1000);
}

/** Selects rows as ReadingRow, time back in Unix milliseconds. */
export const readingColumns = `SELECT register_id AS registerId, ts_s * 1000 + ${readingEpochMs} AS ts, raw_value AS rawValue FROM readings`;

/** Where the previous page stopped: the last row it returned. */
export type ReadingsKeyset = { ts: number; registerId: number };

export interface ReadingsPageQuery {
  /** Internal register ids, at least one. */
  registerIds: number[];
  /** Window start, inclusive (ms). */
  since: number;
  /** Window end, exclusive (ms). */
  until: number;
  order: "asc" | "desc";
  limit: number;
  after: ReadingsKeyset | null;
}

export interface ReadingsPage {
  rows: ReadingRow[];
  hasMore: boolean;
}

/** A window of history over a set of registers, read from oldest to newest (history export). */
export interface ReadingsScan {
  /** Internal register ids; none gives nothing. */
  registerIds: number[];
  /** Window start, inclusive (ms). */
  since: number;
  /** Window end, exclusive (ms). */
  until: number;
  /** Rows per page (default 50,000). */
  pageSize?: number;
}

/** What an import batch did: readings stored, and readings left out as already stored or denser than the storage period. */
export type ImportCounts = { stored: number; skipped: number };

/** Reading history, in (register id, ts in Unix ms, raw value); how it is laid out is the engine's affair. */
export interface ReadingStore {
  /** One keyset page of history over one or more registers (spec section 4, rules 1 to 3). */
  page(query: ReadingsPageQuery): ReadingsPage;
  /**
   * Stores readings and moves each register's latest value forward, in one
   * transaction. A second reading for a (register, time) already stored is
   * ignored, and so is its value for the latest: history and latest agree.
   */
  record(batch: NewReading[]): void;
  /**
   * Ingest's write, one transaction: stores `readings` (a register's second
   * already stored keeps its first value) and moves each register's latest value
   * to the one given when it is newer than the stored latest.
   */
  recordPolled(readings: readonly ReadingTuple[], latest: readonly LatestValue[]): void;
  /**
   * The window's readings in time order (ts, then register id), as pages of at
   * most `pageSize` rows, read by keyset so memory stays that of one page however
   * long the window. Rows committed while the scan runs may or may not appear;
   * none appears twice.
   */
  scan(query: ReadingsScan): Iterable<ReadingRow[]>;
  /**
   * History import, one transaction: a reading is stored only when its register
   * has no stored reading yet in the same storage period (`storagePeriodOf` in
   * lib/storage-period.ts with the register's period from `storageIntervalMs`,
   * in ms, every register of the batch listed), taking the batch in order; the
   * others are skipped. So importing the same readings again stores nothing, and
   * the density rule (spec section 8) holds across import and ingest. Each
   * register's latest value moves to its newest stored reading when that is newer.
   */
  importReadings(batch: readonly ReadingTuple[], storageIntervalMs: ReadonlyMap<number, number>): ImportCounts;
  /** Each register's newest stored reading time (Unix ms); registers without readings are absent. */
  newestTimes(): Map<number, number>;
  /** Registers that have readings older than `cutoffMs`. */
  registersWithReadingsBefore(cutoffMs: number): number[];
  /**
   * Deletes one batch of a register's oldest readings older than `cutoffMs`:
   * about `maxRows` (whole seconds), in its own short transaction; `done` once
   * none older is left.
   */
  deleteOldest(registerId: number, cutoffMs: number, maxRows: number): { deleted: number; done: boolean };
}

/** Stored density is at most one value a minute (spec section 8): the first slab's guess. */
const densestIntervalMs = 60_000;

export function sqliteReadingStore(connection: SqliteConnection): ReadingStore {
  const { sqlite } = connection;
  const columns = readingColumns;
  const oneAsc = sqlite.prepare<ReadingRow, [number, number, number, number]>(
    `${columns} WHERE register_id = ?1 AND ts_s >= ?2 AND ts_s < ?3 ORDER BY ts_s ASC LIMIT ?4`,
  );
  const oneDesc = sqlite.prepare<ReadingRow, [number, number, number, number]>(
    `${columns} WHERE register_id = ?1 AND ts_s >= ?2 AND ts_s < ?3 ORDER BY ts_s DESC LIMIT ?4`,
  );
  // ?4/?5 exclude the rows at the cursor's own timestamp that the previous page
  // already returned (register ids on the passed side of the cursor).
  const slabAsc = sqlite.prepare<ReadingRow, [string, number, number, number, number, number]>(
    `${columns} WHERE register_id IN (SELECT value FROM json_each(?1)) AND ts_s >= ?2 AND ts_s < ?3
       AND NOT (ts_s = ?4 AND register_id <= ?5) ORDER BY ts_s ASC, register_id ASC LIMIT ?6`,
  );
  const slabDesc = sqlite.prepare<ReadingRow, [string, number, number, number, number, number]>(
    `${columns} WHERE register_id IN (SELECT value FROM json_each(?1)) AND ts_s >= ?2 AND ts_s < ?3
       AND NOT (ts_s = ?4 AND register_id >= ?5) ORDER BY ts_s DESC, register_id DESC LIMIT ?6`,
  );
  const insert = sqlite.prepare<never, [number, number, number | null]>(
    "INSERT OR IGNORE INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
  );
  // Strictly newer only: a second value for the latest's own time is a resend, and
  // history keeps the first value for a time (INSERT OR IGNORE), so latest does too.
  const advanceLatest = sqlite.prepare<never, [number, number | null, number]>(
    `UPDATE registers SET latest_raw_value = ?2, latest_ts = ?3
      WHERE id = ?1 AND (latest_ts IS NULL OR latest_ts < ?3)`,
  );
  // History import writes many rows per statement: the per-statement cost dominates a one-row insert.
  const insertChunk = sqlite.prepare<never, (number | null)[]>(
    `INSERT OR IGNORE INTO readings (register_id, ts_s, raw_value) VALUES ${Array(insertChunkRows).fill("(?, ?, ?)").join(", ")}`,
  );
  const storedTimesIn = sqlite.prepare<{ ts: number }, [number, number, number]>(
    `SELECT ts_s * 1000 + ${readingEpochMs} AS ts FROM readings WHERE register_id = ?1 AND ts_s >= ?2 AND ts_s < ?3`,
  );
  const anyStoredIn = sqlite.prepare<{ found: number }, [number, number, number]>(
    "SELECT 1 AS found FROM readings WHERE register_id = ?1 AND ts_s >= ?2 AND ts_s < ?3 LIMIT 1",
  );
  /** The storage periods among `periods` (of one register) that already hold a stored reading. */
  const occupiedPeriods = (registerId: number, intervalMs: number, periods: number[]): Set<number> => {
    const occupied = new Set<number>();
    let low = Number.POSITIVE_INFINITY;
    let high = Number.NEGATIVE_INFINITY;
    for (const period of periods) {
      low = Math.min(low, period);
      high = Math.max(high, period);
    }
    if (high - low < 4 * periods.length) {
      // Dense: one range read covers every period the batch touches.
      const rows = storedTimesIn.all(registerId, boundSeconds(low * intervalMs), boundSeconds((high + 1) * intervalMs));
      for (const row of rows) occupied.add(storagePeriodOf(row.ts, intervalMs));
    } else {
      // Sparse over a long span: one probe per period, never a read of the history between.
      for (const period of periods) {
        const start = period * intervalMs;
        if (anyStoredIn.get(registerId, boundSeconds(start), boundSeconds(start + intervalMs)) !== null)
          occupied.add(period);
      }
    }
    return occupied;
  };
  const newest = sqlite.prepare<{ id: number; ts: number | null }, []>(
    // One index seek per register; a GROUP BY over readings would scan the whole table.
    // A bare max() in the subquery, so SQLite answers it from the end of the register's range.
    `SELECT r.id AS id, (SELECT max(ts_s) FROM readings WHERE register_id = r.id) * 1000 + ${readingEpochMs} AS ts FROM registers r`,
  );
  const withOldReadings = sqlite.prepare<{ id: number }, [number]>(
    // Only registers with something to prune: one index probe each.
    "SELECT id FROM registers r WHERE EXISTS (SELECT 1 FROM readings WHERE register_id = r.id AND ts_s < ?1)",
  );
  // The time of the maxRows-th oldest reading below the cutoff, if there are that many.
  const batchEnd = sqlite.prepare<{ ts_s: number }, [number, number, number]>(
    "SELECT ts_s FROM readings WHERE register_id = ?1 AND ts_s < ?2 ORDER BY ts_s LIMIT 1 OFFSET ?3",
  );
  const deleteUpTo = sqlite.prepare<never, [number, number]>(
    "DELETE FROM readings WHERE register_id = ?1 AND ts_s <= ?2",
  );
  const deleteBelow = sqlite.prepare<never, [number, number]>(
    "DELETE FROM readings WHERE register_id = ?1 AND ts_s < ?2",
  );

  function singleRegisterPage(query: ReadingsPageQuery, registerId: number): ReadingRow[] {
    const fetch = query.limit + 1;
    if (query.order === "asc") {
      const since = query.after === null ? query.since : Math.max(query.since, query.after.ts + 1);
      return oneAsc.all(registerId, boundSeconds(since), boundSeconds(query.until), fetch);
    }
    const until = query.after === null ? query.until : Math.min(query.until, query.after.ts);
    return oneDesc.all(registerId, boundSeconds(query.since), boundSeconds(until), fetch);
  }

  function slabbedPage(query: ReadingsPageQuery): ReadingRow[] {
    const ids = JSON.stringify(query.registerIds);
    const rows: ReadingRow[] = [];
    let wanted = query.limit + 1;
    let span = Math.ceil(wanted / query.registerIds.length) * densestIntervalMs;
    // The cursor's own second; before the epoch's first when there is none (nothing matches it).
    const cursorSeconds = query.after === null ? Number.MIN_SAFE_INTEGER : storedSeconds(query.after.ts);
    const cursorRegister = query.after?.registerId ?? 0;
    if (query.order === "asc") {
      let low = query.after === null ? query.since : Math.max(query.since, query.after.ts);
      while (wanted > 0 && low < query.until) {
        const high = Math.min(query.until, low + span);
        const slab = slabAsc.all(ids, boundSeconds(low), boundSeconds(high), cursorSeconds, cursorRegister, wanted);
        for (const row of slab) rows.push(row);
        wanted -= slab.length;
        span = nextSpan(span, slab.length, wanted);
        low = high;
      }
    } else {
      let high = query.after === null ? query.until : Math.min(query.until, query.after.ts + 1);
      while (wanted > 0 && high > query.since) {
        const low = Math.max(query.since, high - span);
        const slab = slabDesc.all(ids, boundSeconds(low), boundSeconds(high), cursorSeconds, cursorRegister, wanted);
        for (const row of slab) rows.push(row);
        wanted -= slab.length;
        span = nextSpan(span, slab.length, wanted);
        high = low;
      }
    }
    return rows;
  }

  const importTransaction = sqlite.transaction(
    (batch: readonly ReadingTuple[], storageIntervalMs: ReadonlyMap<number, number>): ImportCounts => {
      // Written in key order: rows of one register land in the same pages one after another.
      const chosen = rowsInFreePeriods(batch, storageIntervalMs, occupiedPeriods).sort(
        (a, b) => a[0] - b[0] || a[1] - b[1],
      );
      let index = 0;
      for (; index + insertChunkRows <= chosen.length; index += insertChunkRows) {
        const values: (number | null)[] = [];
        for (let row = index; row < index + insertChunkRows; row++) {
          const reading = chosen[row] as ReadingTuple;
          values.push(reading[0], storedSeconds(reading[1]), reading[2]);
        }
        insertChunk.run(...values);
      }
      for (; index < chosen.length; index++) {
        const reading = chosen[index] as ReadingTuple;
        insert.run(reading[0], storedSeconds(reading[1]), reading[2]);
      }
      const newestStored = new Map<number, ReadingTuple>();
      for (const reading of chosen) {
        const newestSoFar = newestStored.get(reading[0]);
        if (newestSoFar === undefined || newestSoFar[1] < reading[1]) newestStored.set(reading[0], reading);
      }
      for (const reading of newestStored.values()) advanceLatest.run(reading[0], reading[2], reading[1]);
      return { stored: chosen.length, skipped: batch.length - chosen.length };
    },
  );
  let importCacheRaised = false;

  const readingStore: ReadingStore = {
    page(query) {
      if (query.registerIds.length === 0) return { rows: [], hasMore: false };
      const [onlyRegister] = query.registerIds;
      const rows =
        query.registerIds.length === 1 && onlyRegister !== undefined
          ? singleRegisterPage(query, onlyRegister)
          : slabbedPage(query);
      const hasMore = rows.length > query.limit;
      if (hasMore) rows.length = query.limit;
      return { rows, hasMore };
    },

    record: sqlite.transaction((batch: NewReading[]) => {
      for (const reading of batch) {
        const rawValue = reading.rawValue ?? null;
        if (insert.run(reading.registerId, storedSeconds(reading.ts), rawValue).changes > 0) {
          advanceLatest.run(reading.registerId, rawValue, reading.ts);
        }
      }
    }),

    recordPolled: sqlite.transaction((readings: readonly ReadingTuple[], latest: readonly LatestValue[]) => {
      for (const row of readings) insert.run(row[0], storedSeconds(row[1]), row[2]);
      for (const value of latest) advanceLatest.run(value.registerId, value.rawValue, value.ts);
    }),

    *scan(query) {
      const pageSize = query.pageSize ?? 50_000;
      let after: ReadingsKeyset | null = null;
      for (;;) {
        const { rows, hasMore } = readingStore.page({ ...query, order: "asc", limit: pageSize, after });
        if (rows.length > 0) yield rows;
        const last = rows[rows.length - 1];
        if (!hasMore || last === undefined) return;
        after = { ts: last.ts, registerId: last.registerId };
      }
    },

    importReadings(batch, storageIntervalMs) {
      if (!importCacheRaised) {
        // An import appends to every register's last pages at once; SQLite's default
        // 2 MB page cache cannot hold them for thousands of registers and rereads them
        // for every batch. Only a process that imports gets the larger cache.
        sqlite.exec(`PRAGMA cache_size = -${importCacheKib}`);
        importCacheRaised = true;
      }
      return importTransaction(batch, storageIntervalMs);
    },

    newestTimes() {
      const times = new Map<number, number>();
      for (const row of newest.all()) if (row.ts !== null) times.set(row.id, row.ts);
      return times;
    },

    // Stored times are seconds (schema.ts): "older than the cutoff" is below its first stored second.
    registersWithReadingsBefore(cutoffMs) {
      return withOldReadings.all(boundSeconds(cutoffMs)).map((row) => row.id);
    },

    deleteOldest(registerId, cutoffMs, maxRows) {
      const cutoff = boundSeconds(cutoffMs);
      const end = batchEnd.get(registerId, cutoff, maxRows - 1);
      const deleted =
        end === null ? deleteBelow.run(registerId, cutoff).changes : deleteUpTo.run(registerId, end.ts_s).changes;
      return { deleted, done: end === null };
    },
  };
  return readingStore;
}

/** The page cache of a process that imports history (KiB): room for the last leaf pages of some 2,500 registers. */
const importCacheKib = 12_288;

/** Rows per multi-row INSERT of a history import (3 parameters each, well under SQLite's limit). */
const insertChunkRows = 200;

/**
 * The density rule for an import batch (ReadingStore.importReadings): in batch
 * order, a reading is kept when its register's storage period holds no stored
 * reading and no reading kept before it in the batch.
 */
function rowsInFreePeriods(
  batch: readonly ReadingTuple[],
  storageIntervalMs: ReadonlyMap<number, number>,
  occupiedPeriods: (registerId: number, intervalMs: number, periods: number[]) => Set<number>,
): ReadingTuple[] {
  const periodsByRegister = new Map<number, number[]>();
  const periodOfRow = new Float64Array(batch.length);
  batch.forEach((reading, index) => {
    const intervalMs = storageIntervalMs.get(reading[0]);
    if (intervalMs === undefined) throw new Error(`importReadings: no storage period for register ${reading[0]}`);
    const period = storagePeriodOf(reading[1], intervalMs);
    periodOfRow[index] = period;
    let periods = periodsByRegister.get(reading[0]);
    if (periods === undefined) {
      periods = [];
      periodsByRegister.set(reading[0], periods);
    }
    periods.push(period);
  });
  const occupied = new Map<number, Set<number>>();
  for (const [registerId, periods] of periodsByRegister) {
    occupied.set(registerId, occupiedPeriods(registerId, storageIntervalMs.get(registerId) as number, periods));
  }
  const chosen: ReadingTuple[] = [];
  batch.forEach((reading, index) => {
    const taken = occupied.get(reading[0]) as Set<number>;
    const period = periodOfRow[index] as number;
    if (taken.has(period)) return;
    taken.add(period);
    chosen.push(reading);
  });
  return chosen;
}

/** Grows the slab span towards the density seen, so sparse history needs few slabs. */
function nextSpan(span: number, found: number, stillWanted: number): number {
  if (stillWanted <= 0) return span;
  const factor = found === 0 ? 64 : Math.min(64, Math.max(2, Math.ceil(stillWanted / found)));
  return span * factor;
}
