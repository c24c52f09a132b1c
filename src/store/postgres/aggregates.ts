/**
 * Attaching storage-period aggregates to readings stored earlier (ReadingStore.recordPolled):
 * a tail row takes its columns in place (PostgreSQL is not on flash); a reading
 * compaction already moved into a block has that block re-encoded with it, under
 * the history lock compaction takes (locks.ts). An aggregate whose reading is
 * not stored is dropped.
 */
import { RegisterTail } from "../codec/tail.ts";
import { type PeriodAggregate, storedSeconds } from "../contract/readings.ts";
import { addBlock, type BlockRow, decodeRow, encodeRows } from "./blocks.ts";
import type { Sql } from "./connection.ts";
import { lockHistory } from "./locks.ts";

export async function attachAggregates(
  sql: Sql,
  aggregates: readonly PeriodAggregate[],
  readingsPerBlock: number,
): Promise<void> {
  const ids = aggregates.map((entry) => entry.registerId);
  const seconds = aggregates.map((entry) => storedSeconds(entry.ts));
  const mins = aggregates.map((entry) => entry.aggregate.rawMin);
  const maxes = aggregates.map((entry) => entry.aggregate.rawMax);
  const means = aggregates.map((entry) => entry.aggregate.rawMean);
  const samples = aggregates.map((entry) => entry.aggregate.samples);
  const updated = (await sql`
    UPDATE history_tail t SET raw_min = a.mn, raw_max = a.mx, raw_mean = a.me, samples = a.n
      FROM unnest(${ids}::int[], ${seconds}::int[], ${mins}::float8[], ${maxes}::float8[], ${means}::float8[],
        ${samples}::int[]) AS a(id, s, mn, mx, me, n)
     WHERE t.register_id = a.id AND t.ts_s = a.s
    RETURNING t.register_id, t.ts_s`) as { register_id: number; ts_s: number }[];
  const inTail = new Set(updated.map((row) => `${row.register_id}/${row.ts_s}`));
  const rest = aggregates.filter((_, index) => !inTail.has(`${ids[index]}/${seconds[index]}`));
  if (rest.length === 0) return;
  await sql.begin(async (tx) => {
    await lockHistory(tx);
    for (const { registerId, ts, aggregate } of rest) {
      const at = storedSeconds(ts);
      const [block] = (await tx`
        DELETE FROM history_blocks
         WHERE register_id = ${registerId} AND start_s <= ${at} AND last_s >= ${at}
        RETURNING register_id, start_s, data`) as { register_id: number; start_s: number; data: Uint8Array }[];
      if (block === undefined) continue;
      const run = new RegisterTail();
      addBlock(run, decodeRow(block));
      run.setAggregate(at, aggregate);
      const rows: BlockRow[] = [];
      encodeRows(registerId, run, 0, run.count, readingsPerBlock, rows);
      await tx`INSERT INTO history_blocks ${tx(rows)}`;
    }
  });
}
