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
 * counted, never silently. A backlog is written in transactions of at most
 * `maxRowsPerTransaction` readings with the event loop free between them.
 *
 * A `string` register's text is not history (readings are numbers): it moves the
 * register's latest time like any value, and its text is written only when it
 * changes, so a nameplate read every cycle costs flash once.
 */
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/logger.ts";
import type { PolledValue } from "../lib/polled-value.ts";
import { effectiveStorageInterval } from "../lib/storage-period.ts";
import type { LatestValue, ReadingTuple } from "../store/contract/readings.ts";
import type { Store } from "../store/index.ts";
import { createDensityGate } from "./storage-density.ts";

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

export async function createIngest(options: IngestOptions) {
  const { store, clock, logger } = options;
  const defaultInterval = options.defaultStorageIntervalMs;
  const maxQueued = options.maxQueued ?? 1_000_000;
  const registers = new Map<string, number>();
  let queue: ReadingTuple[] = [];
  // History near a candidate: the store's, and what waits in the queue (asked only
  // when the clock is behind stored history, after a step back).
  const density = createDensityGate(async (registerId, fromMs, toMs) => {
    let newest: number | null;
    try {
      newest = await store.readings.newestBetween(registerId, fromMs, toMs);
    } catch (error) {
      // The store cannot say: the value is skipped (asked again within the interval), and
      // the poller, which hands values over here, never sees the error.
      logger.warn({ err: error }, "ingest cannot read stored history near a reading; skipped");
      return fromMs;
    }
    for (const [id, ts] of queue) {
      if (id === registerId && ts >= fromMs && ts < toMs && (newest === null || ts > newest)) newest = ts;
    }
    return newest;
  });
  // Starting from each register's newest stored reading: backfilled history and
  // the history of earlier runs count, whatever the clock says now.
  const newest = await store.readings.newestTimes();
  for (const row of await store.registers.allIds()) {
    const intervalMs = effectiveStorageInterval(options.storageIntervalMs.get(row.uuid) ?? defaultInterval);
    registers.set(row.uuid, row.id);
    density.track(row.id, intervalMs, newest.get(row.id));
  }

  let oldestQueuedAt = 0;
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
  /** Each string register's text as stored, and the changed ones waiting for the next write. */
  const storedTexts = await store.registers.latestTexts();
  let texts = new Map<number, string>();
  /** Batches wait here while one waits for the store's answer on density: they are taken in the order read. */
  let admitting: Promise<void> | null = null;

  /**
   * Takes a poll's values. Synchronous unless the density rule must ask the store
   * (after a clock step back): then this batch and the ones after it are taken
   * once the answer is in, in order.
   */
  function accept(batch: readonly PolledValue[]): void {
    if (admitting === null) {
      const waiting = acceptSome(batch, 0);
      if (waiting === undefined) return;
      admitting = waiting;
    } else {
      const earlier = admitting;
      admitting = earlier.then(() => acceptSome(batch, 0));
    }
    const tail = admitting.catch((error: unknown) => {
      logger.error({ err: error }, "ingest could not take a batch of readings");
    });
    admitting = tail;
    void tail.then(() => {
      if (admitting === tail) admitting = null;
    });
  }

  /** Takes the batch from `start`; a promise when the density rule waits for the store, continuing after it. */
  function acceptSome(batch: readonly PolledValue[], start: number): Promise<void> | undefined {
    if (start === 0 && queue.length + batch.length > maxQueued) {
      stats.dropped += batch.length;
      logger.error({ dropped: batch.length, queued: queue.length }, "ingest queue full: batch of readings dropped");
      return undefined;
    }
    const now = clock.now();
    const monotonicNow = clock.monotonic();
    const fresh: LatestValue[] = [];
    for (let index = start; index < batch.length; index++) {
      const reading = batch[index] as PolledValue;
      const registerId = registers.get(reading.registerId);
      if (registerId === undefined) {
        stats.unknownRegisters++;
        if (!warnedUnknown.has(reading.registerId)) {
          warnedUnknown.add(reading.registerId);
          logger.warn({ register_id: reading.registerId }, "reading for a register the store does not have");
        }
        continue;
      }
      stats.accepted++;
      fresh.push({ registerId, rawValue: reading.raw, ts: reading.ts });
      if (reading.text !== undefined) {
        if (storedTexts.get(registerId) !== reading.text) texts.set(registerId, reading.text);
        else texts.delete(registerId);
        continue;
      }
      const readAt = reading.monotonic ?? monotonicNow - (now - reading.ts);
      const admitted = density.admit(registerId, reading.ts, readAt);
      if (admitted === true) enqueue(registerId, reading, monotonicNow);
      else if (admitted !== false) {
        takeLatest(fresh);
        return admitted.then((stored) => {
          if (stored) enqueue(registerId, reading, monotonicNow);
          return acceptSome(batch, index + 1);
        });
      }
    }
    takeLatest(fresh);
    return undefined;
  }

  function enqueue(registerId: number, reading: PolledValue, monotonicNow: number): void {
    if (queue.length === 0) oldestQueuedAt = monotonicNow;
    queue.push([registerId, reading.ts, reading.raw]);
  }

  function takeLatest(fresh: LatestValue[]): void {
    stats.queued = queue.length;
    // Latest values are served from the store's memory at once; only history waits for the commit.
    if (fresh.length > 0) {
      store.readings.setLatest(fresh).catch((error: unknown) => {
        logger.error({ err: error }, "latest values not taken");
      });
    }
  }

  const maxRowsPerTransaction = options.maxRowsPerTransaction ?? 100_000;

  /**
   * Writes the oldest waiting readings, at most maxRowsPerTransaction, and the
   * latest values, in one transaction. Returns how many readings it stored, or
   * null when the write failed (everything then stays waiting, in order).
   * One at a time (the timer, flush and stop may ask together), so that a
   * failed batch goes back in front of everything taken after it.
   */
  let writing: Promise<unknown> = Promise.resolve();
  function writeTransaction(): Promise<number | null> {
    const turn = writing.then(writeNow);
    writing = turn;
    return turn;
  }

  async function writeNow(): Promise<number | null> {
    if (queue.length === 0 && texts.size === 0) return 0;
    const rows = queue.length <= maxRowsPerTransaction ? queue : queue.slice(0, maxRowsPerTransaction);
    const rest = rows === queue ? [] : queue.slice(maxRowsPerTransaction);
    const changedTexts = texts;
    queue = rest;
    texts = new Map();
    const began = performance.now();
    try {
      await store.readings.recordPolled(rows);
      if (changedTexts.size > 0) {
        await store.registers.recordTexts([...changedTexts].map(([registerId, text]) => ({ registerId, text })));
        for (const [registerId, text] of changedTexts) storedTexts.set(registerId, text);
      }
    } catch (error) {
      // Keep the batch for the next attempt (disk full, busy): put it back in front.
      queue = rows.concat(queue);
      for (const [registerId, text] of changedTexts) if (!texts.has(registerId)) texts.set(registerId, text);
      stats.queued = queue.length;
      const message = error instanceof Error ? error.message : String(error);
      // One log line per condition, not one per flush while the disk stays full.
      if (message !== stats.writeError)
        logger.error({ err: error, waiting: queue.length }, "ingest write failed; will retry");
      stats.writeError = message;
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
  async function flush(): Promise<number> {
    // Batches waiting for a density answer are taken first: flush writes all that was accepted.
    while (admitting !== null) await admitting;
    let stored = 0;
    do {
      const written = await writeTransaction();
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
  const drain = async () => {
    draining = true;
    // writeNow catches every store error: the loop never rejects.
    while ((await writeTransaction()) !== null && queue.length > 0 && !stopped) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    draining = false;
  };
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const timer = setInterval(() => {
    if (!draining) void drain();
  }, flushIntervalMs);

  return {
    accept,
    flush,
    stats(): IngestStats {
      return { ...stats, lagMs: queue.length === 0 ? 0 : clock.monotonic() - oldestQueuedAt };
    },
    /** Stops the timer and writes what is left. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await flush();
    },
  };
}
export type Ingest = Awaited<ReturnType<typeof createIngest>>;
