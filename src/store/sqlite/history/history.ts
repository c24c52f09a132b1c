/**
 * Reading history in compressed blocks: the store-internal engine the
 * readings operations will sit on. Readings of the open period(s) are appended to
 * `history_tail` (and held in memory by register, ../../codec/tail.ts); when a period has
 * ended (plus a grace for late polls), each register's readings of it are encoded
 * into blocks (../../codec/block.ts) in `history_blocks` and leave the tail, one switch per
 * period committed with the state row. Reads merge both (page.ts).
 *
 * Operations, as the readings store needs them: record a batch, a page over one or
 * several registers with a keyset cursor, the newest reading per register, prune
 * before a cutoff; plus closePeriods, which the owner calls from a timer.
 */
import type { Database } from "bun:sqlite";
import { addBlock, OpenTail, RegisterTail } from "../../codec/tail.ts";
import {
  boundSeconds,
  type NewReading,
  type PeriodAggregate,
  type ReadingAggregate,
  type ReadingRow,
  type ReadingsPage,
  type ReadingsPageQuery,
  readingEpochMs,
  storedSeconds,
} from "../../contract/readings.ts";
import { blockTable } from "./blocks.ts";
import { type PageSource, readPage } from "./page.ts";
import { decodeTailAggregate, encodeTailAggregate, isStandaloneAggregate } from "./tail-aggregate.ts";

export interface BlockHistoryOptions {
  /**
   * Length of a period in seconds, used when the store has none yet (a store keeps
   * its own). Measured in docs/benchmarks.md ("The open period in memory"): the
   * memory the open tail takes grows with it.
   */
  periodSeconds?: number;
  /** Decoded blocks kept for paging (about 20 kB each for a day of minutes). */
  cachedBlocks?: number;
  /**
   * At most this many readings a block (besides the byte limit). Smaller blocks make
   * a page over many registers decode less per register, at some bytes a reading:
   * 240 (four hours of minutes) halves a whole gateway's page for 0.12 B/reading
   * more (docs/benchmarks.md).
   */
  readingsPerBlock?: number;
  /** Registers encoded per transaction while a period closes, the event loop free between. */
  registersPerTransaction?: number;
  /**
   * Called when another process changed the history (an import beside `serve`) and
   * the memory copies were read again, so owners of other copies can follow.
   */
  onOtherWriter?: () => void;
}

/**
 * A new store's period: four hours, the 240 readings of one full block at one stored
 * reading a minute, so closing it writes the blocks a day's period wrote (the same
 * bytes a reading, docs/benchmarks.md) while the open tail in memory holds at most
 * four hours, not a day: for 1,000 registers with aggregates the history's heap peaks
 * near 28 MB instead of 85 (scripts/bench/open-tail.ts).
 * Stores made with a day's period (before 2026-11-27) keep it.
 */
export const defaultPeriodSeconds = 14_400;
export const defaultReadingsPerBlock = 240;
/** Before any close: every period is open. */
const noPeriodClosed = -2_147_483_648;

const msOf = (seconds: number) => seconds * 1000 + readingEpochMs;

/**
 * A raw value as the tail's REAL column holds it. SQLite stores NaN as NULL and
 * -0 as 0, so those two go in as their 8 float64 bytes: a blob keeps its type in
 * a REAL column, and raw values stay exact before their period closes too.
 */
function tailColumnOf(raw: number | null): number | Uint8Array | null {
  if (raw === null || (!Number.isNaN(raw) && !Object.is(raw, -0))) return raw;
  return new Uint8Array(new Float64Array([raw]).buffer);
}

function tailValueOf(column: number | Uint8Array | null): number | null {
  if (column === null || typeof column === "number") return column;
  return new Float64Array(column.slice(0, 8).buffer)[0] as number;
}

export function openBlockHistory(db: Database, options: BlockHistoryOptions = {}) {
  const stateRow = db
    .query<{ periodSeconds: number; openPeriod: number }, []>(
      "SELECT period_s AS periodSeconds, open_period AS openPeriod FROM history_state WHERE id = 1",
    )
    .get();
  const periodSeconds = stateRow?.periodSeconds ?? options.periodSeconds ?? defaultPeriodSeconds;
  let openPeriod = stateRow?.openPeriod ?? noPeriodClosed;
  const blocks = blockTable(db, options.cachedBlocks ?? 512, options.readingsPerBlock ?? defaultReadingsPerBlock);
  const registersPerTransaction = options.registersPerTransaction ?? 200;
  const periodOf = (seconds: number) => Math.floor(seconds / periodSeconds);

  // A close that a crash interrupted wrote blocks of a period that is still open: drop them, it runs again.
  blocks.dropFrom(openPeriod);
  const tail = new OpenTail();
  const tailRows = db.prepare<
    { registerId: number; seconds: number; raw: number | Uint8Array | null; aggregate: Uint8Array | null },
    []
  >(
    "SELECT register_id AS registerId, ts_s AS seconds, raw_value AS raw, agg AS aggregate FROM history_tail ORDER BY rowid",
  );
  /** Reads the tail rows into memory, each aggregate onto the reading it names (rows come in the order written). */
  function loadTail(): void {
    for (const row of tailRows.iterate()) {
      const standalone = row.aggregate !== null && isStandaloneAggregate(row.aggregate);
      if (!standalone) tail.insert(row.registerId, row.seconds, tailValueOf(row.raw));
      if (row.aggregate === null) continue;
      const held = tail.of(row.registerId);
      if (held === undefined) continue;
      const valueAt = (back: number) => {
        const at = held.lowerBound(row.seconds - back);
        return at < held.count && held.ts[at] === row.seconds - back ? held.raw(at) : null;
      };
      const { back, aggregate } = decodeTailAggregate(row.aggregate, valueAt);
      // A reading no longer in the tail was closed into blocks with its aggregate already.
      held.setAggregate(row.seconds - back, aggregate);
    }
  }
  loadTail();
  let firstPeriod = blocks.firstPeriod();

  /** Registers given readings of the period being closed since its close began: encoded again at the switch. */
  let closing: { period: number; changed: Set<number> } | null = null;

  // Other processes on the same file (an import beside `serve`): every history
  // write raises the generation; a process that finds it raised by someone else
  // reads the tail, the open period and the first period again. data_version
  // changes only with other connections' commits, so the common case costs one pragma.
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const readGeneration = db.prepare<{ generation: number }, []>(
    "SELECT generation FROM history_generation WHERE id = 1",
  );
  const raiseGeneration = db.prepare<{ generation: number }, []>(
    `INSERT INTO history_generation (id, generation) VALUES (1, 1)
       ON CONFLICT (id) DO UPDATE SET generation = generation + 1 RETURNING generation`,
  );
  let knownDataVersion = dataVersion.get()?.data_version ?? 0;
  let knownGeneration = readGeneration.get()?.generation ?? 0;
  /** Set when a reload happened while a period was closing: the switch encodes every register again. */
  let reloadedWhileClosing = false;

  function reload(): void {
    openPeriod =
      db.query<{ openPeriod: number }, []>("SELECT open_period AS openPeriod FROM history_state WHERE id = 1").get()
        ?.openPeriod ?? noPeriodClosed;
    tail.clear();
    loadTail();
    blocks.forget();
    firstPeriod = blocks.firstPeriod();
    if (closing !== null) reloadedWhileClosing = true;
    options.onOtherWriter?.();
  }

  /** Brings memory up to the file when another process wrote history; true if it did. */
  function followOtherWriters(): boolean {
    const version = dataVersion.get()?.data_version ?? 0;
    if (version === knownDataVersion) return false;
    knownDataVersion = version;
    const generation = readGeneration.get()?.generation ?? 0;
    if (generation === knownGeneration) return false;
    knownGeneration = generation;
    reload();
    return true;
  }

  /** Within a write transaction, after its changes: others will reload, this process need not. */
  function wroteHistory(): void {
    knownGeneration = raiseGeneration.get()?.generation ?? knownGeneration + 1;
  }

  /** A write transaction that first follows other writers (taking the write lock at once, so none writes between). */
  function writeTransaction<Args extends unknown[], Result>(
    body: (...args: Args) => Result,
  ): (...args: Args) => Result {
    const transaction = db.transaction((...args: Args) => {
      followOtherWriters();
      return body(...args);
    });
    return (...args: Args) => transaction.immediate(...args);
  }

  const appendTail = db.prepare<never, [number, number, number | Uint8Array | null, Uint8Array | null]>(
    "INSERT INTO history_tail (register_id, ts_s, raw_value, agg) VALUES (?1, ?2, ?3, ?4)",
  );
  // Many rows a statement: one call into SQLite per 100 readings instead of per reading.
  const rowsPerInsert = 100;
  const appendTailMany = db.prepare<never, (number | Uint8Array | null)[]>(
    `INSERT INTO history_tail (register_id, ts_s, raw_value, agg) VALUES ${Array(rowsPerInsert).fill("(?, ?, ?, ?)").join(", ")}`,
  );
  const insertValues: (number | Uint8Array | null)[] = new Array(rowsPerInsert * 4);
  function appendToTail(rows: TailRow[]): void {
    let at = 0;
    for (; at + rowsPerInsert <= rows.length; at += rowsPerInsert) {
      for (let index = 0; index < rowsPerInsert; index++) {
        const row = rows[at + index] as TailRow;
        insertValues[index * 4] = row.registerId;
        insertValues[index * 4 + 1] = row.seconds;
        insertValues[index * 4 + 2] = tailColumnOf(row.raw);
        insertValues[index * 4 + 3] = row.aggregate;
      }
      appendTailMany.run(...insertValues);
    }
    for (; at < rows.length; at++) {
      const row = rows[at] as TailRow;
      appendTail.run(row.registerId, row.seconds, tailColumnOf(row.raw), row.aggregate);
    }
  }
  const deleteTailBefore = db.prepare<never, [number]>("DELETE FROM history_tail WHERE ts_s < ?1");
  const deleteTailOfRegisterBefore = db.prepare<never, [number, number]>(
    "DELETE FROM history_tail WHERE register_id = ?1 AND ts_s < ?2",
  );
  // The state row is written with the first close, so a store that never closed a
  // period (or holds no history) keeps no period length yet.
  const saveOpenPeriodStatement = db.prepare<never, [number, number]>(
    `INSERT INTO history_state (id, period_s, open_period) VALUES (1, ?1, ?2)
       ON CONFLICT (id) DO UPDATE SET open_period = excluded.open_period`,
  );
  const saveOpenPeriod = { run: (period: number) => saveOpenPeriodStatement.run(periodSeconds, period) };

  type TailRow = {
    registerId: number;
    seconds: number;
    raw: number | null;
    /** The `agg` column (tail-aggregate.ts). */
    aggregate: Uint8Array | null;
    /** The reading's own aggregate, as given with it (import, a site's forwarded reading). */
    attached: ReadingAggregate | null;
    attachedTo: number;
  };
  type LateGroup = {
    period: number;
    registerId: number;
    readings: NewReading[];
    aggregates: { ts: number; aggregate: ReadingAggregate }[];
  };

  const source = (): PageSource => ({ blocks, tail, periodSeconds, openPeriod, firstPeriod });

  /** One register's readings of a closed period, as columns, from its blocks. */
  function closedReadings(period: number, registerId: number): RegisterTail {
    const merged = new RegisterTail();
    for (const row of blocks.blocks(period, registerId, "asc"))
      addBlock(merged, blocks.decoded(period, registerId, row));
    return merged;
  }

  /**
   * Readings and aggregates for a period already closed (a late poll, a backfill,
   * the aggregate of a storage period that ended after the close): its blocks are
   * rewritten with them. A reading already held keeps its value; an aggregate
   * attaches to it.
   */
  function recordLate(late: Map<string, LateGroup>, stored: NewReading[] | undefined): number {
    let count = 0;
    for (const group of late.values()) {
      const appended = appendLate(group, stored);
      if (appended !== null) {
        count += appended;
        continue;
      }
      const { period, registerId, readings, aggregates } = group;
      const merged = closedReadings(period, registerId);
      let added = 0;
      let changed = false;
      for (const reading of readings) {
        if (merged.insert(storedSeconds(reading.ts), reading.rawValue ?? null, reading.aggregate ?? null)) {
          added++;
          stored?.push(reading);
        }
      }
      for (const { ts, aggregate } of aggregates)
        changed = merged.setAggregate(storedSeconds(ts), aggregate) || changed;
      count += added;
      if (added === 0 && !changed) continue;
      blocks.replace(period, registerId, merged);
      if (firstPeriod === null || period < firstPeriod) firstPeriod = period;
    }
    return count;
  }

  /**
   * The common case of an import into closed periods, in time order: readings all
   * after the register's last block of the period. Only that block is decoded and
   * written again with them (null when the case does not hold: recordLate rewrites
   * the period's blocks).
   */
  function appendLate(group: LateGroup, stored: NewReading[] | undefined): number | null {
    const { period, registerId, readings, aggregates } = group;
    if (aggregates.length > 0 || readings.length === 0) return null;
    const [last] = blocks.blocks(period, registerId, "desc");
    const lastSeconds = last?.lastSeconds ?? Number.NEGATIVE_INFINITY;
    for (const reading of readings) if (storedSeconds(reading.ts) <= lastSeconds) return null;
    const run = new RegisterTail();
    if (last !== undefined) addBlock(run, blocks.decoded(period, registerId, last));
    let added = 0;
    for (const reading of readings) {
      if (run.insert(storedSeconds(reading.ts), reading.rawValue ?? null, reading.aggregate ?? null)) {
        added++;
        stored?.push(reading);
      }
    }
    blocks.replaceLast(period, registerId, last ?? null, run);
    if (firstPeriod === null || period < firstPeriod) firstPeriod = period;
    return added;
  }

  const recordTransaction = writeTransaction(
    (batch: NewReading[], stored: NewReading[] | undefined, aggregates: readonly PeriodAggregate[]) => {
      const accepted: TailRow[] = [];
      const inBatch = new Map<string, TailRow>();
      const late = new Map<string, LateGroup>();
      const lateGroup = (period: number, registerId: number): LateGroup => {
        const key = `${period}/${registerId}`;
        const group = late.get(key) ?? { period, registerId, readings: [], aggregates: [] };
        late.set(key, group);
        return group;
      };
      for (const reading of batch) {
        const seconds = storedSeconds(reading.ts);
        const period = periodOf(seconds);
        if (period < openPeriod) {
          lateGroup(period, reading.registerId).readings.push(reading);
          continue;
        }
        const key = `${reading.registerId}/${seconds}`;
        if (inBatch.has(key) || tail.has(reading.registerId, seconds)) continue;
        const aggregate = reading.aggregate ?? null;
        const row: TailRow = {
          registerId: reading.registerId,
          seconds,
          raw: reading.rawValue ?? null,
          aggregate: aggregate === null ? null : encodeTailAggregate(aggregate, reading.rawValue ?? null, 0, false),
          attached: aggregate,
          attachedTo: seconds,
        };
        inBatch.set(key, row);
        accepted.push(row);
        stored?.push(reading);
      }
      // Each aggregate rides on a row of its register written now (the next reading,
      // usually), or on a row of its own: the tail is only appended to.
      const carriers = new Map<number, TailRow[]>();
      for (const row of accepted) {
        if (row.aggregate !== null) continue;
        const list = carriers.get(row.registerId) ?? [];
        list.push(row);
        carriers.set(row.registerId, list);
      }
      const attached: { registerId: number; seconds: number; aggregate: ReadingAggregate }[] = [];
      for (const { registerId, ts, aggregate } of aggregates) {
        const seconds = storedSeconds(ts);
        const period = periodOf(seconds);
        if (period < openPeriod) {
          lateGroup(period, registerId).aggregates.push({ ts, aggregate });
          continue;
        }
        const reading = inBatch.get(`${registerId}/${seconds}`);
        const held = tail.of(registerId);
        let value: number | null;
        if (reading !== undefined) value = reading.raw;
        else if (held?.has(seconds) === true) value = held.raw(held.lowerBound(seconds));
        else continue; // Its reading is not stored: nothing to attach it to.
        const carrier = carriers.get(registerId)?.shift();
        if (carrier === undefined) {
          accepted.push({
            registerId,
            seconds,
            raw: null,
            aggregate: encodeTailAggregate(aggregate, value, 0, true),
            attached: null,
            attachedTo: seconds,
          });
        } else {
          carrier.aggregate = encodeTailAggregate(aggregate, value, carrier.seconds - seconds, false);
        }
        attached.push({ registerId, seconds, aggregate });
      }
      appendToTail(accepted);
      const lateStored = late.size > 0 ? recordLate(late, stored) : 0;
      if (accepted.length > 0 || late.size > 0) wroteHistory();
      return { accepted, lateStored, attached };
    },
  );

  /** Encodes registers' readings of `period` from the tail into blocks (its rows stay in the tail until the switch). */
  function encodePeriod(period: number, registerIds: number[]): void {
    const start = period * periodSeconds;
    const end = start + periodSeconds;
    for (const registerId of registerIds) {
      const open = tail.of(registerId);
      if (open === undefined) continue;
      const from = open.lowerBound(start);
      const to = open.lowerBound(end);
      blocks.replaceRange(period, registerId, open, from, to);
    }
  }

  /** Commits the close of `period`: blocks of registers that changed meanwhile again, tail rows out, state forward. */
  const switchPeriod = writeTransaction((period: number, changed: number[]) => {
    // Another process added readings of this period meanwhile: all of it again, from the tail as read back.
    encodePeriod(period, reloadedWhileClosing ? [...tail.registers.keys()] : changed);
    const end = (period + 1) * periodSeconds;
    deleteTailBefore.run(end);
    saveOpenPeriod.run(period + 1);
    wroteHistory();
  });

  /** Moves the first open period forward (nothing of the periods before it is in the tail). */
  const advanceOpenPeriod = writeTransaction((period: number) => {
    if (openPeriod >= period) return;
    saveOpenPeriod.run(period);
    openPeriod = period;
    wroteHistory();
  });

  async function closePeriod(period: number): Promise<void> {
    // Periods before it have nothing in the tail: closed from here on, so a reading
    // for them arriving meanwhile goes to their blocks, not to tail rows the switch drops.
    advanceOpenPeriod(period);
    closing = { period, changed: new Set() };
    reloadedWhileClosing = false;
    try {
      const registerIds = [...tail.registers.keys()];
      for (let from = 0; from < registerIds.length; from += registersPerTransaction) {
        writeTransaction(() => encodePeriod(period, registerIds.slice(from, from + registersPerTransaction)))();
        // Encoding leaves a few kB of garbage a block; a collection between chunks keeps
        // a close's memory to about one chunk's (a day of 2,000 registers: +57 MB -> +20 MB).
        Bun.gc(false);
        await new Promise((resolve) => setImmediate(resolve));
      }
      switchPeriod(period, [...closing.changed]);
    } finally {
      closing = null;
      reloadedWhileClosing = false;
    }
    openPeriod = period + 1;
    tail.dropBefore(openPeriod * periodSeconds);
    firstPeriod = blocks.firstPeriod();
  }

  let closeRunning: Promise<number> | null = null;

  return {
    periodSeconds,

    /** The first period still open (its readings in the tail). */
    openPeriod: () => openPeriod,

    /**
     * Stores readings in one transaction; a second reading for a (register,
     * second) already stored is ignored (the first is kept). Returns how many were
     * stored; `stored`, when given, receives them.
     */
    record(batch: NewReading[], stored?: NewReading[], aggregates: readonly PeriodAggregate[] = []): number {
      const { accepted, lateStored, attached } = recordTransaction(batch, stored, aggregates);
      // Memory follows only once the transaction has committed.
      let readings = 0;
      const noteChange = (registerId: number, seconds: number) => {
        if (closing !== null && periodOf(seconds) === closing.period) closing.changed.add(registerId);
      };
      for (const row of accepted) {
        if (row.raw === null && row.aggregate !== null && isStandaloneAggregate(row.aggregate)) continue;
        tail.insert(row.registerId, row.seconds, row.raw, row.attached);
        noteChange(row.registerId, row.seconds);
        readings++;
      }
      for (const { registerId, seconds, aggregate } of attached) {
        tail.of(registerId)?.setAggregate(seconds, aggregate);
        noteChange(registerId, seconds);
      }
      return readings + lateStored;
    },

    page(query: ReadingsPageQuery): ReadingsPage {
      followOtherWriters();
      const since = boundSeconds(query.since);
      const until = boundSeconds(query.until);
      const after = query.after;
      const cursorSeconds = after === null ? 0 : storedSeconds(after.ts);
      const bounds = query.registerIds.map((registerId) => {
        if (after === null) return { registerId, low: since, high: until };
        if (query.order === "asc") {
          const low = registerId > after.registerId ? cursorSeconds : cursorSeconds + 1;
          return { registerId, low: Math.max(since, low), high: until };
        }
        const high = registerId < after.registerId ? cursorSeconds + 1 : cursorSeconds;
        return { registerId, low: since, high: Math.min(until, high) };
      });
      const found = readPage(source(), bounds, query.order, query.limit + 1);
      const hasMore = found.length > query.limit;
      if (hasMore) found.length = query.limit;
      return {
        // A reading without an aggregate has no such key (ReadingRow).
        rows: found.map((row) =>
          row.aggregate === null
            ? { registerId: row.registerId, ts: msOf(row.seconds), rawValue: row.raw }
            : { registerId: row.registerId, ts: msOf(row.seconds), rawValue: row.raw, aggregate: row.aggregate },
        ),
        hasMore,
      };
    },

    /** Each register's newest reading (registers without any are left out). */
    latest(registerIds: number[]): ReadingRow[] {
      followOtherWriters();
      const found = new Map<number, ReadingRow>();
      const missing = new Set<number>();
      for (const registerId of registerIds) {
        const open = tail.of(registerId);
        if (open !== undefined && open.count > 0) {
          const last = open.count - 1;
          found.set(registerId, { registerId, ts: msOf(open.ts[last] as number), rawValue: open.raw(last) });
        } else {
          missing.add(registerId);
        }
      }
      // Registers with nothing open: newest period first, one key-prefix read per
      // period for all of them (not one probe per register and period), until each is found.
      for (let period = openPeriod - 1; missing.size > 0 && firstPeriod !== null && period >= firstPeriod; period--) {
        for (const registerId of blocks.registersOf(period)) {
          if (!missing.has(registerId)) continue;
          const [row] = blocks.blocks(period, registerId, "desc");
          if (row === undefined) continue;
          const block = blocks.decoded(period, registerId, row);
          const last = block.count - 1;
          found.set(registerId, {
            registerId,
            ts: msOf(block.ts[last] as number),
            rawValue: block.nulls?.[last] === 1 ? null : (block.values[last] as number),
          });
          missing.delete(registerId);
        }
      }
      return registerIds.flatMap((registerId) => found.get(registerId) ?? []);
    },

    /**
     * Closes every period that ended at least `graceMs` before `nowMs`, oldest
     * first, each in transactions of `registersPerTransaction` registers with the
     * event loop free between; reads see either the whole period in the tail or
     * the whole period in blocks. Returns how many periods were closed.
     */
    closePeriods(nowMs: number, graceMs = 600_000): Promise<number> {
      if (closeRunning !== null) return closeRunning;
      const target = periodOf(storedSeconds(nowMs - graceMs)); // periods before this have ended
      const run = async () => {
        followOtherWriters();
        let closed = 0;
        for (;;) {
          const earliest = tail.earliest();
          if (earliest === null || periodOf(earliest) >= target) break;
          await closePeriod(Math.max(openPeriod, periodOf(earliest)));
          closed++;
        }
        advanceOpenPeriod(target);
        return closed;
      };
      closeRunning = run().finally(() => {
        closeRunning = null;
      });
      return closeRunning;
    },

    /** Deletes readings before `cutoffMs`: whole periods at once, the edge period's blocks cut exactly. */
    prune(cutoffMs: number): number {
      const cutoff = boundSeconds(cutoffMs);
      const edge = periodOf(cutoff);
      const pruneTransaction = writeTransaction(() => {
        let removed = blocks.dropBefore(Math.min(edge, openPeriod));
        if (edge < openPeriod) removed += blocks.cutBefore(edge, cutoff);
        if (cutoff > openPeriod * periodSeconds) {
          deleteTailBefore.run(cutoff);
          removed += tail.countBefore(cutoff);
        }
        if (removed > 0) wroteHistory();
        return removed;
      });
      const removed = pruneTransaction();
      tail.dropBefore(cutoff);
      firstPeriod = blocks.firstPeriod();
      return removed;
    },

    /**
     * With nothing in the tail, moves the first open period to the one `nowMs`
     * (less the grace) falls in: readings of earlier periods then go to blocks.
     */
    openFrom(nowMs: number, graceMs = 600_000): void {
      const target = periodOf(storedSeconds(nowMs - graceMs));
      followOtherWriters();
      if (tail.earliest() === null && openPeriod < target) advanceOpenPeriod(target);
    },

    /**
     * With nothing in the tail, moves the first open period to the one after the
     * period of `newestMs` (an import batch's newest reading), if that one has
     * ended by `nowMs` less the grace: the batch then goes into blocks. Not further,
     * so pages over that history do not walk the empty periods up to now.
     */
    openAfter(newestMs: number, nowMs: number, graceMs = 600_000): void {
      const target = Math.min(periodOf(storedSeconds(nowMs - graceMs)), periodOf(storedSeconds(newestMs)) + 1);
      followOtherWriters();
      if (tail.earliest() === null && openPeriod < target) advanceOpenPeriod(target);
    },

    /** Registers holding readings before `cutoffMs`, closed or open. */
    registersWithReadingsBefore(cutoffMs: number): number[] {
      followOtherWriters();
      const cutoff = boundSeconds(cutoffMs);
      const found = new Set(firstPeriod === null ? [] : blocks.registersBefore(periodOf(cutoff), cutoff));
      for (const [registerId, open] of tail.registers) {
        if (open.count > 0 && (open.ts[0] as number) < cutoff) found.add(registerId);
      }
      return [...found].sort((a, b) => a - b);
    },

    /**
     * Deletes a register's oldest readings before `cutoffMs`, period by period in
     * one transaction each, until at least `maxReadings` went or none is left.
     */
    pruneRegister(registerId: number, cutoffMs: number, maxReadings: number): { deleted: number; done: boolean } {
      followOtherWriters();
      const cutoff = boundSeconds(cutoffMs);
      const edge = Math.min(periodOf(cutoff), openPeriod - 1);
      let deleted = 0;
      for (let period = firstPeriod ?? edge + 1; period <= edge; period++) {
        deleted += writeTransaction(() => {
          const cut = blocks.cutRegisterBefore(period, registerId, cutoff);
          if (cut > 0) wroteHistory();
          return cut;
        })();
        if (deleted >= maxReadings) {
          firstPeriod = blocks.firstPeriod();
          return { deleted, done: false };
        }
      }
      firstPeriod = blocks.firstPeriod();
      const open = tail.of(registerId);
      const before = open === undefined ? 0 : open.lowerBound(cutoff);
      if (open === undefined || before === 0) return { deleted, done: true };
      // The tail has no index by register: this scans it, which only history not yet
      // closed (a retention shorter than a period, a store no timer closes) asks for.
      const budget = Math.max(1, maxReadings - deleted);
      const upTo = before > budget ? (open.ts[budget] as number) : cutoff;
      writeTransaction(() => {
        deleteTailOfRegisterBefore.run(registerId, upTo);
        wroteHistory();
      })();
      deleted += open.dropBefore(upTo);
      return { deleted, done: before <= budget };
    },

    /** Readings held, closed and open (for tests and benchmarks; counts every block). */
    count(): { closed: number; open: number } {
      followOtherWriters();
      const closed = db.query<{ n: number | null }, []>("SELECT sum(count) AS n FROM history_blocks").get()?.n ?? 0;
      let open = 0;
      for (const register of tail.registers.values()) open += register.count;
      return { closed, open };
    },
  };
}

export type BlockHistory = ReturnType<typeof openBlockHistory>;
