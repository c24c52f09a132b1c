/**
 * Retention of reading history (spec section 8: 12 months by default). Old
 * readings are deleted register by register in small batches, each its own short
 * transaction, with a pause between batches: readers never wait (WAL), and
 * ingest waits at most one batch. Freed pages are reused by SQLite for new
 * readings, so the file stops growing once retention is reached; it is not
 * vacuumed (a VACUUM rewrites the whole file and blocks writers while it runs).
 */
import type { Store } from "./open.ts";

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
  const registers = store.sqlite
    .query<{ id: number }, [number]>(
      // Only registers with something to prune: one index probe each.
      "SELECT id FROM registers r WHERE EXISTS (SELECT 1 FROM readings WHERE register_id = r.id AND ts < ?1)",
    )
    .all(cutoffMs);
  // The timestamp of the batchRows-th oldest reading below the cutoff, if there are that many.
  const batchEnd = store.sqlite.prepare<{ ts: number }, [number, number, number]>(
    "SELECT ts FROM readings WHERE register_id = ?1 AND ts < ?2 ORDER BY ts LIMIT 1 OFFSET ?3",
  );
  const deleteUpTo = store.sqlite.prepare<never, [number, number]>("DELETE FROM readings WHERE register_id = ?1 AND ts <= ?2");
  const deleteBelow = store.sqlite.prepare<never, [number, number]>("DELETE FROM readings WHERE register_id = ?1 AND ts < ?2");

  const result: PruneResult = { deleted: 0, batches: 0, registers: registers.length, ms: 0 };
  for (const { id } of registers) {
    // Stopping between batches leaves nothing half done: each batch is its own transaction.
    if (options.signal?.aborted) break;
    for (;;) {
      const end = batchEnd.get(id, cutoffMs, batchRows - 1);
      const changes = end === null ? deleteBelow.run(id, cutoffMs).changes : deleteUpTo.run(id, end.ts).changes;
      result.deleted += changes;
      result.batches++;
      await Bun.sleep(pauseMs);
      if (end === null || options.signal?.aborted) break;
    }
  }
  result.ms = performance.now() - began;
  return result;
}
