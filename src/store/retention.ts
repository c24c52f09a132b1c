/**
 * Retention of reading history (docs/api.md section 8: 12 months by default). Old
 * readings are deleted register by register in small batches, each its own short
 * transaction, with a pause between batches: readers never wait (WAL), and
 * ingest waits at most one batch. Freed pages are reused by SQLite for new
 * readings, so the file stops growing once retention is reached; it is not
 * vacuumed (a VACUUM rewrites the whole file and blocks writers while it runs).
 * On PostgreSQL, each month wholly before the cutoff goes first with one DROP
 * TABLE (docs/fleet.md, "Retention"); the batches take the edge month.
 */
import type { ReadingStore } from "./readings.ts";

export interface PruneResult {
  deleted: number;
  batches: number;
  registers: number;
  ms: number;
}

export async function pruneReadings(
  readings: ReadingStore,
  cutoffMs: number,
  options: { batchRows?: number; pauseMs?: number; signal?: AbortSignal } = {},
): Promise<PruneResult> {
  const batchRows = options.batchRows ?? 5000;
  const pauseMs = options.pauseMs ?? 2;
  const began = performance.now();
  // Whole time partitions first, where the engine has them (a PostgreSQL central's months).
  const dropped = await readings.dropPartitionsBefore(cutoffMs);
  const registers = await readings.registersWithReadingsBefore(cutoffMs);
  const result: PruneResult = { deleted: dropped, batches: 0, registers: registers.length, ms: 0 };
  for (const id of registers) {
    // Stopping between batches leaves nothing half done: each batch is its own transaction.
    if (options.signal?.aborted) break;
    for (;;) {
      const batch = await readings.deleteOldest(id, cutoffMs, batchRows);
      result.deleted += batch.deleted;
      result.batches++;
      await Bun.sleep(pauseMs);
      if (batch.done || options.signal?.aborted) break;
    }
  }
  result.ms = performance.now() - began;
  return result;
}
