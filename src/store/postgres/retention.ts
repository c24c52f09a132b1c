/**
 * Retention's per-register batches on PostgreSQL (docs/fleet.md, "Retention"; whole
 * months go first with DROP TABLE of their partition, reading-store.ts): the blocks
 * of the edge month before the cutoff are deleted, the block across the cutoff is cut exactly (re-encoded without its
 * older readings), and the tail rows before it deleted. Block writers hold the
 * history lock (locks.ts).
 */
import { RegisterTail } from "../codec/tail.ts";
import { addBlock, type BlockRow, decodeRow, encodeRows } from "./blocks.ts";
import type { Sql } from "./connection.ts";
import { lockHistory } from "./locks.ts";

type OldBlock = { register_id: number; start_s: number; last_s: number; count: number; data: Uint8Array };

/** Re-encodes the readings at or after `cutoff` of blocks across it; returns the readings cut. */
async function cutAcross(tx: Sql, across: OldBlock[], cutoff: number, readingsPerBlock: number): Promise<number> {
  let cut = 0;
  const rows: BlockRow[] = [];
  for (const block of across) {
    const run = new RegisterTail();
    addBlock(run, decodeRow(block));
    cut += run.dropBefore(cutoff);
    encodeRows(block.register_id, run, 0, run.count, readingsPerBlock, rows);
  }
  // The rows go back into the partition they came from (a block never spans a period, nor a period a month).
  if (rows.length > 0) await tx`INSERT INTO history_blocks ${tx(rows)}`;
  return cut;
}

/** Registers holding readings before `cutoff`, in blocks or in the tail. */
export async function registersBefore(sql: Sql, cutoff: number): Promise<number[]> {
  const rows = (await sql`
    SELECT register_id AS id FROM history_blocks WHERE start_s < ${cutoff}
    UNION SELECT register_id FROM history_tail WHERE ts_s < ${cutoff}
    ORDER BY 1`) as { id: number }[];
  return rows.map((row) => row.id);
}

/**
 * Deletes one register's oldest readings before `cutoff`, in one transaction: its
 * whole blocks before it (oldest first, until about `maxRows`), then the block
 * across it and its tail rows before it once the whole ones are gone.
 */
export async function deleteOldestOf(
  sql: Sql,
  registerId: number,
  cutoff: number,
  maxRows: number,
  readingsPerBlock: number,
): Promise<{ deleted: number; done: boolean }> {
  return await sql.begin(async (tx) => {
    await lockHistory(tx);
    const candidates = (await tx`
      SELECT start_s, count FROM history_blocks
       WHERE register_id = ${registerId} AND start_s < ${cutoff} AND last_s < ${cutoff}
       ORDER BY start_s LIMIT ${Math.max(1, maxRows)}`) as { start_s: number; count: number }[];
    let deleted = 0;
    const starts: number[] = [];
    for (const block of candidates) {
      if (deleted >= maxRows) break;
      starts.push(block.start_s);
      deleted += block.count;
    }
    if (starts.length > 0) {
      await tx`DELETE FROM history_blocks WHERE register_id = ${registerId} AND start_s = ANY(${starts}::int[])`;
    }
    const [left] = (await tx`
      SELECT 1 AS x FROM history_blocks
       WHERE register_id = ${registerId} AND start_s < ${cutoff} AND last_s < ${cutoff} LIMIT 1`) as unknown[];
    if (left !== undefined) return { deleted, done: false };
    const across = (await tx`
      DELETE FROM history_blocks WHERE register_id = ${registerId} AND start_s < ${cutoff} AND last_s >= ${cutoff}
      RETURNING register_id, start_s, last_s, count, data`) as OldBlock[];
    deleted += await cutAcross(tx, across, cutoff, readingsPerBlock);
    const tail = await tx`DELETE FROM history_tail WHERE register_id = ${registerId} AND ts_s < ${cutoff}`;
    return { deleted: deleted + tail.count, done: true };
  });
}
