/**
 * The one path readings take into the store. Pollers hand over every value they
 * read; ingest keeps each register's latest value fresh (the value read last,
 * whatever its wall time: after a clock step back it is earlier than the one
 * before), stores at most one value per register per storage interval (the rule
 * of storage-density.ts), and writes everything in batched transactions.
 *
 * A reading counts as stored only once the transaction holding it committed
 * (`stats().committed`). If the disk is slower than the pollers, batches grow up
 * to `maxQueued` readings; beyond that an incoming batch is dropped, logged and
 * counted, never silently (admission.ts). A backlog is written in transactions of
 * at most `maxRowsPerTransaction` readings with the event loop free between them.
 *
 * A `string` register's text is not history (readings are numbers): it moves the
 * register's latest time like any value, and its text is written only when it
 * changes (reading-buffer.ts).
 *
 * Every numeric value also counts towards its storage period's aggregate
 * (period-aggregates.ts), which goes to the store with the register's next stored
 * reading once the period is over.
 */

import type { Clock } from "../lib/clock.ts";
import { LoggedFailure } from "../lib/log-once.ts";
import type { Logger } from "../lib/logger.ts";
import { SerialTurns } from "../lib/serial-turns.ts";
import { effectiveStorageInterval } from "../lib/storage-period.ts";
import type { LatestValue } from "../store/contract/readings.ts";
import type { Store } from "../store/index.ts";
import { createAdmission } from "./admission.ts";
import { createPeriodAggregates } from "./period-aggregates.ts";
import { ReadingBuffer } from "./reading-buffer.ts";
import { createDensityGate } from "./storage-density.ts";

export interface IngestOptions {
  store: Pick<Store, "readings" | "registers">;
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

export async function createIngest(options: IngestOptions) {
  const { store, clock, logger } = options;
  const registers = new Map<string, number>();
  const buffer = new ReadingBuffer(await store.registers.latestTexts());
  // History near a candidate: the store's, and what waits in the buffer (asked only
  // when the clock is behind stored history, after a step back).
  const density = createDensityGate(async (registerId, fromMs, toMs) => {
    try {
      return buffer.newestBetween(
        registerId,
        fromMs,
        toMs,
        await store.readings.newestBetween(registerId, fromMs, toMs),
      );
    } catch (error) {
      // The store cannot say: the value is skipped (asked again within the interval), and
      // the poller, which hands values over here, never sees the error.
      logger.warn({ err: error }, "ingest cannot read stored history near a reading; skipped");
      return fromMs;
    }
  });
  // Starting from each register's newest stored reading: backfilled history and
  // the history of earlier runs count, whatever the clock says now.
  const aggregates = createPeriodAggregates();
  const intervals = new Map<number, number>();
  /**
   * Takes the store's registers with their storage periods: at start, and after a
   * reload synced a changed inventory (registers added, periods changed). A register
   * whose period is unchanged keeps its state.
   */
  async function track(storageIntervalMs: ReadonlyMap<string, number>): Promise<void> {
    const newest = await store.readings.newestTimes();
    for (const row of await store.registers.allIds()) {
      const intervalMs = effectiveStorageInterval(storageIntervalMs.get(row.uuid) ?? options.defaultStorageIntervalMs);
      registers.set(row.uuid, row.id);
      if (intervals.get(row.id) === intervalMs) continue;
      intervals.set(row.id, intervalMs);
      density.track(row.id, intervalMs, newest.get(row.id));
      aggregates.track(row.id, intervalMs);
    }
  }
  await track(options.storageIntervalMs);
  const admission = createAdmission({
    registers,
    density,
    buffer,
    maxQueued: options.maxQueued ?? 1_000_000,
    clock,
    logger,
    // Latest values are served from the store's memory at once; only history waits for the commit.
    takeLatest(fresh: LatestValue[]): void {
      if (fresh.length === 0) return;
      store.readings.setLatest(fresh).catch((error: unknown) => {
        logger.error({ err: error }, "latest values not taken");
      });
    },
    // Rare (a device's scale changes seldom, if ever): written at once, so the next answer scales with it.
    takeScaleFactors(changed): void {
      store.registers.recordScaleFactors(changed).catch((error: unknown) => {
        logger.error({ err: error }, "scale factors read from the devices not written");
      });
    },
    countValue: aggregates.add,
  });

  const written = { batches: 0, committed: 0, lastBatchMs: 0, writeError: null as string | null };
  const writeFailure = new LoggedFailure();
  const maxRowsPerTransaction = options.maxRowsPerTransaction ?? 100_000;
  // One write at a time (the timer, flush and stop may ask together), so that a
  // failed batch goes back in front of everything taken after it.
  const writes = new SerialTurns((error) => logger.error({ err: error }, "ingest write failed"));

  /**
   * Writes the oldest waiting readings, at most maxRowsPerTransaction, and the
   * changed texts. Returns how many readings it stored, or null when the write
   * failed (everything then stays waiting, in order).
   */
  /** Set by stop: the aggregates of the periods in progress go with the last write. */
  let finishing = false;

  async function writeNow(): Promise<number | null> {
    // Aggregates go with the write that holds the whole buffer, after their readings.
    const finished = buffer.length <= maxRowsPerTransaction ? aggregates.take(clock.now(), finishing) : [];
    if (buffer.empty && finished.length === 0) return 0;
    const batch = buffer.take(maxRowsPerTransaction);
    const began = performance.now();
    try {
      await store.readings.recordPolled(batch.rows, finished);
      if (batch.texts.size > 0) {
        await store.registers.recordTexts([...batch.texts].map(([registerId, text]) => ({ registerId, text })));
      }
    } catch (error) {
      // Keep the batch for the next attempt (disk full, busy): put it back in front.
      buffer.putBack(batch);
      aggregates.restore(finished);
      const message = error instanceof Error ? error.message : String(error);
      // One log line per condition, not one per flush while the disk stays full.
      if (writeFailure.occurred(message))
        logger.error({ err: error, waiting: buffer.length }, "ingest write failed; will retry");
      written.writeError = message;
      return null;
    }
    buffer.written(batch);
    written.batches++;
    written.writeError = null;
    writeFailure.ended();
    written.committed += batch.rows.length;
    written.lastBatchMs = performance.now() - began;
    return batch.rows.length;
  }

  /** Writes everything waiting now, transaction after transaction; returns how many readings it stored. */
  async function flush(): Promise<number> {
    // Batches waiting for a density answer are taken first: flush writes all that was accepted.
    await admission.settled();
    let stored = 0;
    do {
      const count = await writes.result(writeNow);
      if (count === null) break;
      stored += count;
    } while (buffer.length > 0);
    return stored;
  }

  // The timer writes one transaction and, while a backlog remains (after a slow
  // disk, for example), the next ones with a turn of the event loop between each:
  // pollers and API requests are never held for more than one transaction.
  let draining = false;
  let stopped = false;
  const drain = async () => {
    draining = true;
    // writeNow catches every store error: the loop never rejects.
    while ((await writes.result(writeNow)) !== null && buffer.length > 0 && !stopped) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    draining = false;
  };
  const timer = setInterval(() => {
    if (!draining) void drain();
  }, options.flushIntervalMs ?? 1000);

  return {
    accept: admission.accept,
    track,
    flush,
    stats(): IngestStats {
      return {
        ...admission.counts(),
        ...written,
        queued: buffer.length,
        lagMs: buffer.lagMs(clock.monotonic()),
      };
    },
    /** Stops the timer and writes what is left. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      finishing = true;
      await flush();
    },
  };
}
export type Ingest = Awaited<ReturnType<typeof createIngest>>;
