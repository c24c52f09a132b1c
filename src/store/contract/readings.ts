/**
 * Reading history: the operations behind ingest, retention and the keyset-paged
 * reads of GET /devices/{id}/readings (docs/api.md section 4.6, rules 1 to 3), and the
 * time conventions they share: the readings domain of the store contract. Both
 * engines keep history as compressed blocks (../codec/) and an append-only tail
 * (docs/architecture.md "Store").
 */
import type { ReadingAggregate } from "../../lib/reading-aggregate.ts";
import { storagePeriodOf } from "../../lib/storage-period.ts";

export type { ReadingAggregate };
/** Readings in and out carry Unix milliseconds; the engines keep seconds since this epoch. */
export type ReadingRow = {
  registerId: number;
  ts: number;
  rawValue: number | null;
  /** Null (or absent) when none was kept: history from before aggregates, or a period a crash cut short. */
  aggregate?: ReadingAggregate | null;
};
export type NewReading = {
  registerId: number;
  ts: number;
  rawValue?: number | null;
  aggregate?: ReadingAggregate | null;
};
/** The aggregate of the storage period whose stored reading is the register's at `ts` (Unix ms), known once the period ended. */
export type PeriodAggregate = { registerId: number; ts: number; aggregate: ReadingAggregate };
/**
 * A reading as ingest queues it: [register id, ts in Unix ms, raw value]; a tuple keeps the hot path lean.
 * Import and a site's forwarded readings may add the reading's aggregate.
 */
export type ReadingTuple = [
  registerId: number,
  ts: number,
  rawValue: number | null,
  aggregate?: ReadingAggregate | null,
];
/** A register's newest value read, whether or not its reading is stored. */
export type LatestValue = { registerId: number; ts: number; rawValue: number | null };

/** 2020-01-01T00:00:00Z: stored reading times count whole seconds from here. */
export const readingEpochMs = 1_577_836_800_000;

/** A reading's time as stored: whole seconds since the epoch, rounded down. */
export function storedSeconds(ms: number): number {
  return Math.floor((ms - readingEpochMs) / 1000);
}

/**
 * A window bound in ms as a bound on stored seconds: the first stored second at
 * or after it. Inclusive `>= since` and exclusive `< until` both hold exactly
 * with it, since a stored second s stands for the instant epoch + s x 1000 ms.
 */
export function boundSeconds(ms: number): number {
  return Math.ceil((ms - readingEpochMs) / 1000);
}

/** Where the previous page stopped: the last row it returned. */
export type ReadingsKeyset = { ts: number; registerId: number };

export interface ReadingsPageQuery {
  /** Internal register ids, at least one. */
  registerIds: number[];
  /** Window start, inclusive (ms). */
  since: number;
  /** Window end, exclusive (ms). */
  until: number;
  order: "asc" | "desc";
  limit: number;
  after: ReadingsKeyset | null;
}

export interface ReadingsPage {
  rows: ReadingRow[];
  hasMore: boolean;
}

/** A window of history over a set of registers, read from oldest to newest (history export). */
export interface ReadingsScan {
  /** Internal register ids; none gives nothing. */
  registerIds: number[];
  /** Window start, inclusive (ms). */
  since: number;
  /** Window end, exclusive (ms). */
  until: number;
  /** Rows per page (default 50,000). */
  pageSize?: number;
}

/** How retention deletes: readings per batch (default 5000), pause between batches (ms, default 2). */
export interface PruneOptions {
  batchRows?: number;
  pauseMs?: number;
  signal?: AbortSignal;
}

/** What a prune did: readings deleted, batches run, registers that had readings before the cutoff, time taken (ms). */
export interface PruneResult {
  deleted: number;
  batches: number;
  registers: number;
  ms: number;
}

/** What an import batch did: readings stored, and readings left out as already stored or denser than the storage period. */
export type ImportCounts = { stored: number; skipped: number };

/** Reading history, in (register id, ts in Unix ms, raw value); how it is laid out is the engine's affair. */
export interface ReadingStore {
  /** One keyset page of history over one or more registers (docs/api.md section 4.6, rules 1 to 3). */
  page(query: ReadingsPageQuery): Promise<ReadingsPage>;
  /**
   * Stores readings and moves each register's latest value forward, in one
   * transaction. A second reading for a (register, time) already stored is
   * ignored, and so is its value for the latest: history and latest agree.
   */
  record(batch: NewReading[]): Promise<void>;
  /**
   * Ingest's write, one transaction: stores `readings` (a register's second
   * already stored keeps its first value) and attaches each of `aggregates` to the
   * stored reading it names (one stored at an earlier write, usually); an aggregate
   * whose reading is not stored is dropped.
   */
  recordPolled(readings: readonly ReadingTuple[], aggregates?: readonly PeriodAggregate[]): Promise<void>;
  /**
   * Takes each latest value given, in the order given: the value read last wins,
   * even when a clock step back made its time earlier than the stored latest's.
   * Held in memory and served at once; written to disk rarely (`persistLatest`).
   */
  setLatest(latest: readonly LatestValue[]): Promise<void>;
  /**
   * The window's readings in time order (ts, then register id), as pages of at
   * most `pageSize` rows, read by keyset so memory stays that of one page however
   * long the window. Rows committed while the scan runs may or may not appear;
   * none appears twice.
   */
  scan(query: ReadingsScan): AsyncIterable<ReadingRow[]>;
  /**
   * History import, one transaction: a reading is stored only when its register
   * has no stored reading yet in the same storage period (`storagePeriodOf` in
   * lib/storage-period.ts with the register's period from `storageIntervalMs`,
   * in ms, every register of the batch listed), taking the batch in order; the
   * others are skipped. So importing the same readings again stores nothing, and
   * the density rule (docs/api.md section 8) holds across import and ingest. Each
   * register's latest value moves to its newest stored reading when that is newer.
   * A skipped reading's aggregate, given, is attached to the reading stored at its
   * very second, if there is one (a site sends a reading again once its period's
   * aggregate is known).
   */
  importReadings(batch: readonly ReadingTuple[], storageIntervalMs: ReadonlyMap<number, number>): Promise<ImportCounts>;
  /** Each register's newest stored reading time (Unix ms); registers without readings are absent. */
  newestTimes(): Promise<Map<number, number>>;
  /** The newest stored reading time (Unix ms) of one register in [fromMs, toMs), or null. */
  newestBetween(registerId: number, fromMs: number, toMs: number): Promise<number | null>;
  /**
   * Retention (docs/api.md section 8): deletes every reading older than `cutoffMs`, each
   * engine its own way (SQLite: register by register in small batches, each its own
   * short transaction, with a pause between; PostgreSQL: each month wholly before
   * the cutoff as one partition first, then the edge month in the same batches).
   * Stops between two batches once `signal` aborts, leaving nothing half done.
   */
  prune(cutoffMs: number, options?: PruneOptions): Promise<PruneResult>;
  /**
   * Encodes the periods that ended (plus a grace for late polls) into compressed
   * blocks, then persists the latest values; the app calls it from a timer.
   * Returns how many periods it closed.
   */
  closePeriods(nowMs: number): Promise<number>;
  /** Writes the latest values changed since the last call to disk (also done at a close and when the store closes). */
  persistLatest(): Promise<void>;
}

/**
 * The density rule for an import batch (ReadingStore.importReadings): in batch
 * order, a reading is kept when its register's storage period holds no stored
 * reading and no reading kept before it in the batch.
 */
export function rowsInFreePeriods(
  batch: readonly ReadingTuple[],
  storageIntervalMs: ReadonlyMap<number, number>,
  occupiedPeriods: (registerId: number, intervalMs: number, periods: number[]) => Set<number>,
): ReadingTuple[] {
  const periodsByRegister = new Map<number, number[]>();
  const periodOfRow = new Float64Array(batch.length);
  batch.forEach((reading, index) => {
    const intervalMs = storageIntervalMs.get(reading[0]);
    if (intervalMs === undefined) throw new Error(`importReadings: no storage period for register ${reading[0]}`);
    const period = storagePeriodOf(reading[1], intervalMs);
    periodOfRow[index] = period;
    let periods = periodsByRegister.get(reading[0]);
    if (periods === undefined) {
      periods = [];
      periodsByRegister.set(reading[0], periods);
    }
    periods.push(period);
  });
  const occupied = new Map<number, Set<number>>();
  for (const [registerId, periods] of periodsByRegister) {
    occupied.set(registerId, occupiedPeriods(registerId, storageIntervalMs.get(registerId) as number, periods));
  }
  const chosen: ReadingTuple[] = [];
  batch.forEach((reading, index) => {
    const taken = occupied.get(reading[0]) as Set<number>;
    const period = periodOfRow[index] as number;
    if (taken.has(period)) return;
    taken.add(period);
    chosen.push(reading);
  });
  return chosen;
}

/** The aggregates an import batch carries on readings `rowsInFreePeriods` did not choose: attached to the reading stored at that second, if any. */
export function aggregatesOfSkipped(
  batch: readonly ReadingTuple[],
  chosen: readonly ReadingTuple[],
): PeriodAggregate[] {
  const taken = new Set(chosen);
  const found: PeriodAggregate[] = [];
  for (const row of batch) {
    const aggregate = row[3];
    if (aggregate !== undefined && aggregate !== null && !taken.has(row)) {
      found.push({ registerId: row[0], ts: row[1], aggregate });
    }
  }
  return found;
}
