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
import type { Store } from "./open.ts";

/** Readings in and out carry Unix milliseconds; the table keeps seconds since this epoch (schema.ts). */
export type ReadingRow = { registerId: number; ts: number; rawValue: number | null };
export type NewReading = { registerId: number; ts: number; rawValue?: number | null };

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

/** Stored density is at most one value a minute (spec section 8): the first slab's guess. */
const densestIntervalMs = 60_000;

export function readingQueries(store: Store) {
  const { sqlite } = store;
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
  const insert = readingInsert(store);
  const updateLatest = sqlite.prepare<never, [number, number | null, number]>(
    `UPDATE registers SET latest_raw_value = ?2, latest_ts = ?3
      WHERE id = ?1 AND (latest_ts IS NULL OR latest_ts <= ?3)`,
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

  return {
    page(query: ReadingsPageQuery): ReadingsPage {
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

    /**
     * Stores readings and moves each register's latest value forward, in one
     * transaction. A second reading for a (register, time) already stored is
     * ignored, and so is its value for the latest: history and latest agree.
     */
    record: sqlite.transaction((batch: NewReading[]) => {
      for (const reading of batch) {
        if (insert(reading.registerId, reading.ts, reading.rawValue ?? null) > 0) {
          updateLatest.run(reading.registerId, reading.rawValue ?? null, reading.ts);
        }
      }
    }),
  };
}
export type ReadingQueries = ReturnType<typeof readingQueries>;

/**
 * Stores one reading (time in Unix ms) unless its register already has one in
 * that second; answers 1 when stored, 0 when not. Callers run it inside their
 * own transaction.
 */
export function readingInsert(store: Store): (registerId: number, ts: number, rawValue: number | null) => number {
  const insert = store.sqlite.prepare<never, [number, number, number | null]>(
    "INSERT OR IGNORE INTO readings (register_id, ts_s, raw_value) VALUES (?1, ?2, ?3)",
  );
  return (registerId, ts, rawValue) => insert.run(registerId, storedSeconds(ts), rawValue).changes;
}

/** Each register's newest stored reading time (Unix ms); registers without readings are absent. */
export function newestReadingTimes(store: Store): Map<number, number> {
  const rows = store.sqlite
    .query<{ id: number; ts: number | null }, []>(
      // One index seek per register; a GROUP BY over readings would scan the whole table.
      // A bare max() in the subquery, so SQLite answers it from the end of the register's range.
      `SELECT r.id AS id, (SELECT max(ts_s) FROM readings WHERE register_id = r.id) * 1000 + ${readingEpochMs} AS ts FROM registers r`,
    )
    .all();
  const newest = new Map<number, number>();
  for (const row of rows) if (row.ts !== null) newest.set(row.id, row.ts);
  return newest;
}

/** Grows the slab span towards the density seen, so sparse history needs few slabs. */
function nextSpan(span: number, found: number, stillWanted: number): number {
  if (stillWanted <= 0) return span;
  const factor = found === 0 ? 64 : Math.min(64, Math.max(2, Math.ceil(stillWanted / found)));
  return span * factor;
}
