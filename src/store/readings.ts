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
import type { readings } from "./schema.ts";

export type ReadingRow = { registerId: number; ts: number; rawValue: number | null };
export type NewReading = typeof readings.$inferInsert;

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
  const columns = "SELECT register_id AS registerId, ts, raw_value AS rawValue FROM readings";
  const oneAsc = sqlite.prepare<ReadingRow, [number, number, number, number]>(
    `${columns} WHERE register_id = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts ASC LIMIT ?4`,
  );
  const oneDesc = sqlite.prepare<ReadingRow, [number, number, number, number]>(
    `${columns} WHERE register_id = ?1 AND ts >= ?2 AND ts < ?3 ORDER BY ts DESC LIMIT ?4`,
  );
  // ?4/?5 exclude the rows at the cursor's own timestamp that the previous page
  // already returned (register ids on the passed side of the cursor).
  const slabAsc = sqlite.prepare<ReadingRow, [string, number, number, number, number, number]>(
    `${columns} WHERE register_id IN (SELECT value FROM json_each(?1)) AND ts >= ?2 AND ts < ?3
       AND NOT (ts = ?4 AND register_id <= ?5) ORDER BY ts ASC, register_id ASC LIMIT ?6`,
  );
  const slabDesc = sqlite.prepare<ReadingRow, [string, number, number, number, number, number]>(
    `${columns} WHERE register_id IN (SELECT value FROM json_each(?1)) AND ts >= ?2 AND ts < ?3
       AND NOT (ts = ?4 AND register_id >= ?5) ORDER BY ts DESC, register_id DESC LIMIT ?6`,
  );
  const insert = sqlite.prepare<never, [number, number, number | null]>(
    "INSERT OR IGNORE INTO readings (register_id, ts, raw_value) VALUES (?1, ?2, ?3)",
  );
  const updateLatest = sqlite.prepare<never, [number, number | null, number]>(
    `UPDATE registers SET latest_raw_value = ?2, latest_ts = ?3
      WHERE id = ?1 AND (latest_ts IS NULL OR latest_ts <= ?3)`,
  );

  function singleRegisterPage(query: ReadingsPageQuery, registerId: number): ReadingRow[] {
    const fetch = query.limit + 1;
    if (query.order === "asc") {
      const since = query.after === null ? query.since : Math.max(query.since, query.after.ts + 1);
      return oneAsc.all(registerId, since, query.until, fetch);
    }
    const until = query.after === null ? query.until : Math.min(query.until, query.after.ts);
    return oneDesc.all(registerId, query.since, until, fetch);
  }

  function slabbedPage(query: ReadingsPageQuery): ReadingRow[] {
    const ids = JSON.stringify(query.registerIds);
    const rows: ReadingRow[] = [];
    let wanted = query.limit + 1;
    let span = Math.ceil(wanted / query.registerIds.length) * densestIntervalMs;
    const cursorTs = query.after?.ts ?? -1;
    const cursorRegister = query.after?.registerId ?? 0;
    if (query.order === "asc") {
      let low = query.after === null ? query.since : Math.max(query.since, query.after.ts);
      while (wanted > 0 && low < query.until) {
        const high = Math.min(query.until, low + span);
        const slab = slabAsc.all(ids, low, high, cursorTs, cursorRegister, wanted);
        for (const row of slab) rows.push(row);
        wanted -= slab.length;
        span = nextSpan(span, slab.length, wanted);
        low = high;
      }
    } else {
      let high = query.after === null ? query.until : Math.min(query.until, query.after.ts + 1);
      while (wanted > 0 && high > query.since) {
        const low = Math.max(query.since, high - span);
        const slab = slabDesc.all(ids, low, high, cursorTs, cursorRegister, wanted);
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
        if (insert.run(reading.registerId, reading.ts, reading.rawValue ?? null).changes > 0) {
          updateLatest.run(reading.registerId, reading.rawValue ?? null, reading.ts);
        }
      }
    }),
  };
}
export type ReadingQueries = ReturnType<typeof readingQueries>;

/** Grows the slab span towards the density seen, so sparse history needs few slabs. */
function nextSpan(span: number, found: number, stillWanted: number): number {
  if (stillWanted <= 0) return span;
  const factor = found === 0 ? 64 : Math.min(64, Math.max(2, Math.ceil(stillWanted / found)));
  return span * factor;
}
