/**
 * The one path readings take into the store. Pollers hand over every value they
 * read; ingest keeps each register's latest value fresh, stores at most one value
 * per register per storage period (the first value read in that period, with the
 * time it was read), and writes everything in batched transactions.
 *
 * A reading counts as stored only once the transaction holding it committed
 * (`stats().committed`). If the disk is slower than the pollers, batches grow up
 * to `maxQueued` readings; beyond that an incoming batch is dropped, logged and
 * counted, never silently. A backlog is written in transactions of at most
 * `maxRowsPerTransaction` readings with the event loop free between them.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { effectiveStorageInterval, storagePeriodOf } from "../lib/storage-period.ts";
import type { Store } from "../store/index.ts";
import type { LatestValue, ReadingTuple } from "../store/readings.ts";

export interface IngestOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** Storage period per register id (ms); registers not listed use `defaultStorageIntervalMs`. */
  storageIntervalMs: ReadonlyMap<string, number>;
  defaultStorageIntervalMs?: number;
  flushIntervalMs?: number;
  maxQueued?: number;
  /** Readings per transaction at most (default 100,000); a larger backlog is written in several, yielding between them. */
  maxRowsPerTransaction?: number;
}

export interface IngestStats {
  accepted: number;
  queued: number;
  committed: number;
  dropped: number;
  batches: number;
  lastBatchMs: number;
  /** Age of the oldest reading waiting for a commit (ms), 0 when none waits. */
  lagMs: number;
  unknownRegisters: number;
  /** The error of the last write, while writes fail (a full disk, for example); null once one succeeds. */
  writeError: string | null;
}

type RegisterState = { id: number; intervalMs: number; lastStoredPeriod: number };

export function createIngest(options: IngestOptions) {
  const { store, clock, logger } = options;
  const defaultInterval = options.defaultStorageIntervalMs;
  const maxQueued = options.maxQueued ?? 1_000_000;
  const registers = new Map<string, RegisterState>();
  // The newest stored reading per register decides whether the current period is already stored.
  const newest = store.readings.newestTimes();
  for (const row of store.registers.allIds()) {
    const intervalMs = effectiveStorageInterval(options.storageIntervalMs.get(row.uuid) ?? defaultInterval);
    const lastTs = newest.get(row.id);
    registers.set(row.uuid, {
      id: row.id,
      intervalMs,
      lastStoredPeriod: lastTs === undefined ? -1 : storagePeriodOf(lastTs, intervalMs),
    });
  }

  let queue: ReadingTuple[] = [];
  let oldestQueuedAt = 0;
  let latest = new Map<number, LatestValue>();
  const stats: IngestStats = {
    accepted: 0,
    queued: 0,
    committed: 0,
    dropped: 0,
    batches: 0,
    lastBatchMs: 0,
    lagMs: 0,
    unknownRegisters: 0,
    writeError: null,
  };
  const warnedUnknown = new Set<string>();

  function accept(batch: readonly PolledValue[]): void {
    if (queue.length + batch.length > maxQueued) {
      stats.dropped += batch.length;
      logger.error({ dropped: batch.length, queued: queue.length }, "ingest queue full: batch of readings dropped");
      return;
    }
    const now = clock.now();
    for (const reading of batch) {
      const register = registers.get(reading.registerId);
      if (register === undefined) {
        stats.unknownRegisters++;
        if (!warnedUnknown.has(reading.registerId)) {
          warnedUnknown.add(reading.registerId);
          logger.warn({ register_id: reading.registerId }, "reading for a register the store does not have");
        }
        continue;
      }
      stats.accepted++;
      const current = latest.get(register.id);
      if (current === undefined || current.ts < reading.ts) {
        latest.set(register.id, { registerId: register.id, rawValue: reading.raw, ts: reading.ts });
      }
      const period = storagePeriodOf(reading.ts, register.intervalMs);
      if (period > register.lastStoredPeriod) {
        register.lastStoredPeriod = period;
        if (queue.length === 0) oldestQueuedAt = now;
        queue.push([register.id, reading.ts, reading.raw]);
      }
    }
    stats.queued = queue.length;
  }

  const maxRowsPerTransaction = options.maxRowsPerTransaction ?? 100_000;

  /**
   * Writes the oldest waiting readings, at most maxRowsPerTransaction, and the
   * latest values, in one transaction. Returns how many readings it stored, or
   * null when the write failed (everything then stays waiting, in order).
   */
  function writeTransaction(): number | null {
    if (queue.length === 0 && latest.size === 0) return 0;
    const rows = queue.length <= maxRowsPerTransaction ? queue : queue.slice(0, maxRowsPerTransaction);
    const rest = rows === queue ? [] : queue.slice(maxRowsPerTransaction);
    const values = [...latest.values()];
    queue = rest;
    latest = new Map();
    const began = performance.now();
    try {
      store.readings.recordPolled(rows, values);
    } catch (error) {
      // Keep the batch for the next attempt (disk full, busy): put it back in front.
      queue = rows.concat(queue);
      for (const value of values) if (!latest.has(value.registerId)) latest.set(value.registerId, value);
      stats.queued = queue.length;
      stats.writeError = error instanceof Error ? error.message : String(error);
      logger.error({ err: error, waiting: queue.length }, "ingest write failed; will retry");
      return null;
    }
    stats.batches++;
    stats.writeError = null;
    stats.committed += rows.length;
    stats.lastBatchMs = performance.now() - began;
    stats.queued = queue.length;
    if (queue.length === 0) oldestQueuedAt = 0;
    return rows.length;
  }

  /** Writes everything waiting now, transaction after transaction; returns how many readings it stored. */
  function flush(): number {
    let stored = 0;
    do {
      const written = writeTransaction();
      if (written === null) break;
      stored += written;
    } while (queue.length > 0);
    return stored;
  }

  // The timer writes one transaction and, while a backlog remains (after a slow
  // disk, for example), the next ones with a turn of the event loop between each:
  // pollers and API requests are never held for more than one transaction.
  let draining = false;
  let stopped = false;
  const drain = () => {
    if (writeTransaction() !== null && queue.length > 0 && !stopped) {
      draining = true;
      setImmediate(drain);
    } else {
      draining = false;
    }
  };
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const timer = setInterval(() => {
    if (!draining) drain();
  }, flushIntervalMs);

  return {
    accept,
    flush,
    stats(): IngestStats {
      return { ...stats, lagMs: oldestQueuedAt === 0 ? 0 : clock.now() - oldestQueuedAt };
    },
    /** Stops the timer and writes what is left. */
    stop(): void {
      stopped = true;
      clearInterval(timer);
      flush();
    },
  };
}
export type Ingest = ReturnType<typeof createIngest>;
