/**
 * Retention's batches (docs/api.md section 8: 12 months by default), as both engines
 * run them: old readings are deleted register by register in small batches, each
 * its own short transaction, with a pause between batches, so readers never wait
 * and ingest waits at most one batch. Each engine's `ReadingStore.prune` calls it
 * with its own batch (sqlite/readings.ts; postgres/reading-store.ts,
 * which first drops whole months).
 */
import type { PruneOptions, PruneResult } from "../contract/readings.ts";

/** One engine's per-register batch: which registers hold readings before a cutoff, and one batch of one of them. */
export interface BatchPruner {
  registersWithReadingsBefore(cutoffMs: number): Promise<number[]>;
  deleteOldest(registerId: number, cutoffMs: number, maxRows: number): Promise<{ deleted: number; done: boolean }>;
}

export async function pruneInBatches(
  pruner: BatchPruner,
  cutoffMs: number,
  options: PruneOptions = {},
): Promise<PruneResult> {
  const batchRows = options.batchRows ?? 5000;
  const pauseMs = options.pauseMs ?? 2;
  const began = performance.now();
  const registers = await pruner.registersWithReadingsBefore(cutoffMs);
  const result: PruneResult = { deleted: 0, batches: 0, registers: registers.length, ms: 0 };
  for (const id of registers) {
    // Stopping between batches leaves nothing half done: each batch is its own transaction.
    if (options.signal?.aborted) break;
    for (;;) {
      const batch = await pruner.deleteOldest(id, cutoffMs, batchRows);
      result.deleted += batch.deleted;
      result.batches++;
      await Bun.sleep(pauseMs);
      if (batch.done || options.signal?.aborted) break;
    }
  }
  result.ms = performance.now() - began;
  return result;
}
