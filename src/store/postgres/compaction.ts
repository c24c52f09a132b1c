/**
 * Compaction (docs/fleet.md, "Readings layout"): the tail rows of periods that
 * ended are merged into their register's blocks of that period, in transactions of
 * a few hundred registers. Each transaction takes its rows out of history_tail with
 * DELETE ... RETURNING, so a row recorded meanwhile (not yet visible to it) stays in
 * the tail for the next run: nothing is lost, and the history lock (locks.ts)
 * keeps two processes from merging the same blocks. A reading already in a block
 * wins over a tail row for the same second: it was stored first.
 */
import { RegisterTail } from "../codec/tail.ts";
import type { ReadingAggregate } from "../contract/readings.ts";
import {
  addBlock,
  type BlockRow,
  decodeRow,
  defaultReadingsPerBlock,
  encodeRows,
  periodOf,
  periodSeconds,
} from "./blocks.ts";
import type { Sql } from "./connection.ts";
import { tryLockHistory } from "./locks.ts";
import { ensurePartitions } from "./partitions.ts";

/** A history_tail row as compaction takes it: key, value and aggregate columns. */
type TailRow = [number, number, number | null, number | null, number | null, number | null, number | null];

function tailAggregate(row: TailRow): ReadingAggregate | null {
  const [, , , rawMin, rawMax, rawMean, samples] = row;
  if (samples === null || rawMin === null || rawMax === null || rawMean === null) return null;
  return { rawMin, rawMax, rawMean, samples };
}

export interface CompactionOptions {
  /** Registers merged per transaction (default 200). */
  registersPerTransaction?: number;
  /** At most this many readings a block (default `defaultReadingsPerBlock`, blocks.ts). */
  readingsPerBlock?: number;
}

/**
 * Compacts the tail rows before `endSeconds` (the start of the first period not yet
 * ended). Returns the periods compacted, or null when another process holds the
 * history lock (it is compacting; this run leaves the rest to it).
 */
export async function compactBefore(
  sql: Sql,
  endSeconds: number,
  options: CompactionOptions = {},
): Promise<number | null> {
  const perTransaction = options.registersPerTransaction ?? 200;
  const readingsPerBlock = options.readingsPerBlock ?? defaultReadingsPerBlock;
  const registerIds = (
    (await sql`SELECT DISTINCT register_id AS id FROM history_tail WHERE ts_s < ${endSeconds} ORDER BY 1`) as {
      id: number;
    }[]
  ).map((row) => row.id);
  const periods = new Set<number>();
  for (let from = 0; from < registerIds.length; from += perTransaction) {
    const chunk = registerIds.slice(from, from + perTransaction);
    const done = await sql.begin(async (tx) => {
      if (!(await tryLockHistory(tx))) return false;
      const taken = (await tx`
        DELETE FROM history_tail WHERE register_id = ANY(${chunk}::int[]) AND ts_s < ${endSeconds}
        RETURNING register_id, ts_s, raw_value, raw_min, raw_max, raw_mean, samples`.values()) as TailRow[];
      if (taken.length === 0) return true;
      taken.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      // Groups of (register, period); each merged with the blocks it already has.
      const groups = new Map<string, { registerId: number; period: number; run: RegisterTail }>();
      const keyOf = (registerId: number, period: number) => `${registerId}/${period}`;
      const pairs: { registers: number[]; periods: number[] } = { registers: [], periods: [] };
      for (const [registerId, seconds] of taken) {
        const period = periodOf(seconds);
        const key = keyOf(registerId, period);
        if (!groups.has(key)) {
          groups.set(key, { registerId, period, run: new RegisterTail() });
          pairs.registers.push(registerId);
          pairs.periods.push(period);
          periods.add(period);
        }
      }
      const old = (await tx`
        DELETE FROM history_blocks b
         USING unnest(${pairs.registers}::int[], ${pairs.periods}::int[]) AS g(register_id, period)
         WHERE b.register_id = g.register_id
           AND b.start_s >= g.period * ${periodSeconds} AND b.start_s < (g.period + 1) * ${periodSeconds}
        RETURNING b.register_id, b.start_s, b.data`) as { register_id: number; start_s: number; data: Uint8Array }[];
      old.sort((a, b) => a.register_id - b.register_id || a.start_s - b.start_s);
      for (const block of old) {
        const group = groups.get(keyOf(block.register_id, periodOf(block.start_s)));
        if (group !== undefined) addBlock(group.run, decodeRow(block));
      }
      for (const row of taken) {
        const [registerId, seconds, raw] = row;
        (groups.get(keyOf(registerId, periodOf(seconds))) as { run: RegisterTail }).run.insert(
          seconds,
          raw,
          tailAggregate(row),
        );
      }
      const rows: BlockRow[] = [];
      for (const { registerId, run } of groups.values())
        encodeRows(registerId, run, 0, run.count, readingsPerBlock, rows);
      await ensurePartitions(
        tx,
        rows.map((row) => row.start_s),
      );
      for (let at = 0; at < rows.length; at += 1000)
        await tx`INSERT INTO history_blocks ${tx(rows.slice(at, at + 1000))}`;
      return true;
    });
    if (!done) return null;
  }
  // A day of rows left the tail at once: vacuumed now rather than when autovacuum
  // comes, so the space is reused and pages do not step over dead index entries.
  if (registerIds.length > 0) await sql`VACUUM (SKIP_LOCKED) history_tail`;
  return periods.size;
}
