/**
 * The closed blocks table: reading a register's blocks of one period, writing a
 * run of readings as blocks, dropping periods. Decoded blocks are kept in a small
 * LRU so that a cursor walk does not decode the same block for every page.
 */
import type { Database } from "bun:sqlite";
import { type DecodedBlock, decodeBlock, encodeBlock, lowerBound, type ReadingColumns } from "../../codec/block.ts";

export interface BlockRow {
  startSeconds: number;
  lastSeconds: number;
  count: number;
  data: Uint8Array;
}

/**
 * The largest blob that keeps a history_blocks row on its B-tree page: SQLite
 * moves the payload of an index-tree cell beyond (usable - 12) x 64 / 255 - 23
 * bytes to overflow pages (fileformat2, "B-tree Pages"), which would waste most of
 * a page per block. 24 bytes are left for the key, the other columns and the
 * record header.
 */
export function largestLocalBlob(pageSize: number): number {
  return Math.floor(((pageSize - 12) * 64) / 255) - 23 - 24;
}

export function blockTable(db: Database, cachedBlocks: number, readingsPerBlock: number) {
  const pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
  const maxBlockBytes = largestLocalBlob(pageSize);
  const columns = "SELECT start_s AS startSeconds, last_s AS lastSeconds, count, data FROM history_blocks";
  const ofPeriodAsc = db.prepare<BlockRow, [number, number]>(
    `${columns} WHERE period = ?1 AND register_id = ?2 ORDER BY start_s ASC`,
  );
  const ofPeriodDesc = db.prepare<BlockRow, [number, number]>(
    `${columns} WHERE period = ?1 AND register_id = ?2 ORDER BY start_s DESC`,
  );
  const insert = db.prepare<never, [number, number, number, number, number, Uint8Array]>(
    "INSERT INTO history_blocks (period, register_id, start_s, last_s, count, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
  );
  const deleteOfRegister = db.prepare<never, [number, number]>(
    "DELETE FROM history_blocks WHERE period = ?1 AND register_id = ?2",
  );
  const deleteOne = db.prepare<never, [number, number, number]>(
    "DELETE FROM history_blocks WHERE period = ?1 AND register_id = ?2 AND start_s = ?3",
  );
  const countBefore = db.prepare<{ n: number | null }, [number]>(
    "SELECT sum(count) AS n FROM history_blocks WHERE period < ?1",
  );
  const deleteBefore = db.prepare<never, [number]>("DELETE FROM history_blocks WHERE period < ?1");
  const deleteFrom = db.prepare<never, [number]>("DELETE FROM history_blocks WHERE period >= ?1");
  const ofPeriodBefore = db.prepare<BlockRow & { registerId: number }, [number, number]>(
    `SELECT register_id AS registerId, start_s AS startSeconds, last_s AS lastSeconds, count, data
       FROM history_blocks WHERE period = ?1 AND start_s < ?2`,
  );
  const firstPeriod = db.prepare<{ period: number | null }, []>("SELECT min(period) AS period FROM history_blocks");
  const registersOfPeriod = db.prepare<{ registerId: number }, [number]>(
    "SELECT DISTINCT register_id AS registerId FROM history_blocks WHERE period = ?1",
  );
  // The key leads with the period: only the periods at or before the edge are read.
  const registersBefore = db.prepare<{ registerId: number }, [number, number]>(
    "SELECT DISTINCT register_id AS registerId FROM history_blocks WHERE period <= ?1 AND start_s < ?2",
  );
  const cache = new Map<string, DecodedBlock>();

  function forget(): void {
    cache.clear();
  }

  /** Writes readings [from, to) of one register and period as blocks small enough to stay on their page. */
  function write(period: number, registerId: number, readings: ReadingColumns, from: number, to: number): void {
    if (to <= from) return;
    if (to - from > readingsPerBlock) {
      for (let at = from; at < to; at += readingsPerBlock) {
        write(period, registerId, readings, at, Math.min(to, at + readingsPerBlock));
      }
      return;
    }
    const start = readings.ts[from] as number;
    const data = encodeBlock(start, readings, from, to);
    if (data.length <= maxBlockBytes || to - from === 1) {
      insert.run(period, registerId, start, readings.ts[to - 1] as number, to - from, data);
      return;
    }
    // Cut into equal runs sized from this encoding (a tenth under, for the runs that compress worse).
    const parts = Math.ceil(data.length / (maxBlockBytes * 0.9));
    const size = Math.ceil((to - from) / parts);
    for (let at = from; at < to; at += size) write(period, registerId, readings, at, Math.min(to, at + size));
  }

  return {
    maxBlockBytes,

    /** Drops the decoded blocks kept: another process rewrote blocks. */
    forget,

    blocks(period: number, registerId: number, order: "asc" | "desc"): BlockRow[] {
      return (order === "asc" ? ofPeriodAsc : ofPeriodDesc).all(period, registerId);
    },

    decoded(period: number, registerId: number, row: BlockRow): DecodedBlock {
      const key = `${period}/${registerId}/${row.startSeconds}`;
      const hit = cache.get(key);
      if (hit !== undefined) {
        cache.delete(key);
        cache.set(key, hit);
        return hit;
      }
      const block = decodeBlock(row.startSeconds, row.data);
      cache.set(key, block);
      if (cache.size > cachedBlocks) cache.delete(cache.keys().next().value as string);
      return block;
    },

    /** Replaces a register's blocks of a period with `readings` (all of them in that period). */
    replace(period: number, registerId: number, readings: ReadingColumns): void {
      forget();
      deleteOfRegister.run(period, registerId);
      write(period, registerId, readings, 0, readings.count);
    },

    /**
     * Replaces one block (`row`, the register's last of the period) with `readings`,
     * which hold its readings and ones after it: an import appending in time order
     * rewrites that block only, not the whole period.
     */
    replaceLast(period: number, registerId: number, row: BlockRow | null, readings: ReadingColumns): void {
      forget();
      if (row !== null) deleteOne.run(period, registerId, row.startSeconds);
      write(period, registerId, readings, 0, readings.count);
    },

    /** Replaces a register's blocks of a period with readings [from, to) of `readings`. */
    replaceRange(period: number, registerId: number, readings: ReadingColumns, from: number, to: number): void {
      forget();
      deleteOfRegister.run(period, registerId);
      write(period, registerId, readings, from, to);
    },

    /** Removes the readings before `cutoff` from the blocks of `period`; returns how many. */
    cutBefore(period: number, cutoff: number): number {
      forget();
      let removed = 0;
      for (const row of ofPeriodBefore.all(period, cutoff)) {
        deleteOne.run(period, row.registerId, row.startSeconds);
        if (row.lastSeconds < cutoff) {
          removed += row.count;
          continue;
        }
        const block = decodeBlock(row.startSeconds, row.data);
        const keep = lowerBound(block.ts, block.count, cutoff);
        removed += keep;
        write(period, row.registerId, block, keep, block.count);
      }
      return removed;
    },

    /** Registers with blocks in `period`. */
    registersOf(period: number): number[] {
      return registersOfPeriod.all(period).map((row) => row.registerId);
    },

    /** Registers with blocks starting before `cutoff` in periods up to `edge`. */
    registersBefore(edge: number, cutoff: number): number[] {
      return registersBefore.all(edge, cutoff).map((row) => row.registerId);
    },

    /**
     * Removes one register's readings before `cutoff` from its blocks of `period`,
     * whole blocks where they end before it, the block across it cut exactly;
     * returns how many.
     */
    cutRegisterBefore(period: number, registerId: number, cutoff: number): number {
      let removed = 0;
      for (const row of ofPeriodAsc.all(period, registerId)) {
        if (row.startSeconds >= cutoff) break;
        forget();
        deleteOne.run(period, registerId, row.startSeconds);
        if (row.lastSeconds < cutoff) {
          removed += row.count;
          continue;
        }
        const block = decodeBlock(row.startSeconds, row.data);
        const keep = lowerBound(block.ts, block.count, cutoff);
        removed += keep;
        write(period, registerId, block, keep, block.count);
      }
      return removed;
    },

    /** Drops every period before `period`; returns the readings they held. */
    dropBefore(period: number): number {
      forget();
      const readings = countBefore.get(period)?.n ?? 0;
      deleteBefore.run(period);
      return readings;
    },

    /** Drops periods from `period` on: what a close interrupted by a crash left behind. */
    dropFrom(period: number): void {
      forget();
      deleteFrom.run(period);
    },

    firstPeriod(): number | null {
      return firstPeriod.get()?.period ?? null;
    },
  };
}

export type BlockTable = ReturnType<typeof blockTable>;
