/**
 * Retention of reading history (spec section 8: 12 months by default). Old
 * readings are deleted register by register in small batches, each its own short
 * transaction, with a pause between batches: readers never wait (WAL), and
 * ingest waits at most one batch. Freed pages are reused by SQLite for new
 * readings, so the file stops growing once retention is reached; it is not
 * vacuumed (a VACUUM rewrites the whole file and blocks writers while it runs).
 */
import type { Store } from "./open.ts";
import { boundSeconds } from "./readings.ts";

export interface PruneResult {
  deleted: number;
  batches: number;
  registers: number;
  ms: number;
}

export async function pruneReadings(
  store: Store,
  cutoffMs: number,
  options: { batchRows?: number; pauseMs?: number; signal?: AbortSignal } = {},
): Promise<PruneResult> {
  const batchRows = options.batchRows ?? 5000;
  const pauseMs = options.pauseMs ?? 2;
  const began = performance.now();
  // Stored times are seconds (schema.ts): "older than the cutoff" is below its first stored second.
  const cutoff = boundSeconds(cutoffMs);
  const registers = store.sqlite
    .query<{ id: number }, [number]>(
      // Only registers with something to prune: one index probe each.
      "SELECT id FROM registers r WHERE EXISTS (SELECT 1 FROM readings WHERE register_id = r.id AND ts_s < ?1)",
    )
    .all(cutoff);
  // The time of the batchRows-th oldest reading below the cutoff, if there are that many.
  const batchEnd = store.sqlite.prepare<{ ts_s: number }, [number, number, number]>(
    "SELECT ts_s FROM readings WHERE register_id = ?1 AND ts_s < ?2 ORDER BY ts_s LIMIT 1 OFFSET ?3",
  );
  const deleteUpTo = store.sqlite.prepare<never, [number, number]>("DELETE FROM readings WHERE register_id = ?1 AND ts_s <= ?2");
  const deleteBelow = store.sqlite.prepare<never, [number, number]>("DELETE FROM readings WHERE register_id = ?1 AND ts_s < ?2");

  const result: PruneResult = { deleted: 0, batches: 0, registers: registers.length, ms: 0 };
  for (const { id } of registers) {
    // Stopping between batches leaves nothing half done: each batch is its own transaction.
    if (options.signal?.aborted) break;
    for (;;) {
      const end = batchEnd.get(id, cutoff, batchRows - 1);
      const changes = end === null ? deleteBelow.run(id, cutoff).changes : deleteUpTo.run(id, end.ts_s).changes;
      result.deleted += changes;
      result.batches++;
      await Bun.sleep(pauseMs);
      if (end === null || options.signal?.aborted) break;
    }
  }
  result.ms = performance.now() - began;
  return result;
}
