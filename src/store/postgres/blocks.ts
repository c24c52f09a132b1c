/**
 * Blocks as PostgreSQL rows: the codec is the SQLite engine's (../codec/block.ts,
 * engine-independent); this file cuts a register's readings of one period into
 * rows small enough to stay in their heap page (docs/fleet.md, "Readings layout").
 */
import { type DecodedBlock, decodeBlock, encodeBlock, type ReadingColumns } from "../codec/block.ts";

/** A UTC day, as on SQLite (../sqlite/history/history.ts): blocks never span a period. */
export const periodSeconds = 86_400;

/**
 * At most this many bytes of encoded data a row: partitions are created with
 * toast_tuple_target 8160 (partitions.ts), so a row below it stays in the heap
 * page, uncompressed and not moved to TOAST (the data is deflated already).
 */
const maxBlockBytes = 7_800;

export interface BlockRow {
  period: number;
  register_id: number;
  start_s: number;
  last_s: number;
  count: number;
  data: Uint8Array;
}

export const periodOf = (seconds: number) => Math.floor(seconds / periodSeconds);

/**
 * At most this many readings a block by default: eight hours of minutes. Measured in
 * docs/benchmarks.md ("Readings on PostgreSQL"): day-long blocks are smallest (0.87
 * B/reading) but a page over a device's 20 registers decodes a whole day of each;
 * 480 costs 0.12 B/reading more and brings that page within 2x of SQLite's.
 */
export const defaultReadingsPerBlock = 480;

/** Appends readings [from, to) of one register and period to `out` as rows of at most `readingsPerBlock` readings and `maxBlockBytes` bytes. */
export function encodeRows(
  registerId: number,
  columns: ReadingColumns,
  from: number,
  to: number,
  readingsPerBlock: number,
  out: BlockRow[],
): void {
  if (to <= from) return;
  if (to - from > readingsPerBlock) {
    for (let at = from; at < to; at += readingsPerBlock) {
      encodeRows(registerId, columns, at, Math.min(to, at + readingsPerBlock), readingsPerBlock, out);
    }
    return;
  }
  const start = columns.ts[from] as number;
  const data = encodeBlock(start, columns, from, to);
  if (data.length <= maxBlockBytes || to - from === 1) {
    const last = columns.ts[to - 1] as number;
    out.push({
      period: periodOf(start),
      register_id: registerId,
      start_s: start,
      last_s: last,
      count: to - from,
      data,
    });
    return;
  }
  // Equal runs sized from this encoding, a tenth under for the runs that compress worse.
  const parts = Math.ceil(data.length / (maxBlockBytes * 0.9));
  const size = Math.ceil((to - from) / parts);
  for (let at = from; at < to; at += size) encodeRows(registerId, columns, at, Math.min(to, at + size), size, out);
}

export function decodeRow(row: { start_s: number; data: Uint8Array }): DecodedBlock {
  return decodeBlock(row.start_s, row.data);
}

export { addBlock } from "../codec/tail.ts";
