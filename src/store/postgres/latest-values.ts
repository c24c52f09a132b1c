/**
 * Latest values on PostgreSQL: the `registers.latest_*` columns, written at once.
 * SQLite holds them in one process's memory and persists them rarely
 * (../sqlite/latest-values.ts); central processes share them, so here every change is a
 * row update that any process reads at its next request, one statement per batch.
 * Here: `setLatest` (the value read last wins, written at once), and the values
 * `record` moves forward with the readings it stores (PendingLatest).
 */
import type { LatestValue } from "../contract/readings.ts";
import type { Sql } from "./connection.ts";

/** Each register's last value in `values` (the one given last wins, as in LatestValues.set). */
function lastOfEach(values: readonly LatestValue[]): LatestValue[] {
  const last = new Map<number, LatestValue>();
  for (const value of values) last.set(value.registerId, value);
  return [...last.values()];
}

/** Takes the values as given, in order: the value read last wins, even when its time is earlier (a clock step back). */
export async function setLatestIn(sql: Sql, values: readonly LatestValue[]): Promise<void> {
  if (values.length === 0) return;
  const last = lastOfEach(values);
  const ids = last.map((value) => value.registerId);
  const times = last.map((value) => value.ts);
  const raws = last.map((value) => value.rawValue);
  await sql`
    UPDATE registers r SET latest_raw_value = given.raw, latest_ts = given.ts
      FROM unnest(${ids}::int[], ${times}::float8[], ${raws}::float8[]) AS given(id, ts, raw)
     WHERE r.id = given.id`;
}

/**
 * Latest values moved forward by recorded readings, held briefly and written
 * together. A forwarded batch of 10,000 readings touches every register of a site;
 * updating 2,000 register rows per batch halved ingest (docs/benchmarks.md,
 * "Latest values on PostgreSQL"), so, as SQLite holds them in memory and persists
 * them rarely, they are coalesced here and written within `flushAfterMs` (one
 * statement per flush), at `persistLatest`, compaction and close. A process killed
 * in between loses at most that window's latest values, until the next reading of
 * each register moves it again.
 */
export class PendingLatest {
  private readonly pending = new Map<number, LatestValue>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly flushAfterMs: number,
  ) {}

  /** Takes the value only when it is newer than the one held: LatestValues.advance's comparison (`held.ts < value.ts`). */
  advance(value: LatestValue): void {
    const held = this.pending.get(value.registerId);
    if (held === undefined || held.ts < value.ts) this.pending.set(value.registerId, value);
    if (this.timer === null && this.pending.size > 0) {
      this.timer = setTimeout(() => void this.flush().catch(() => {}), this.flushAfterMs);
      this.timer.unref?.();
    }
  }

  /** Drops what is held for a register (a value set since replaces it). */
  forget(registerId: number): void {
    this.pending.delete(registerId);
  }

  /**
   * Writes what is held, each value only where it is newer than the stored one (the
   * same comparison, in one conditional UPDATE: two processes writing the same
   * register leave the newer value). On failure the values are kept for the next flush.
   */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const values = [...this.pending.values()];
    this.pending.clear();
    const write = async () => {
      if (values.length === 0) return;
      try {
        await this.sql`
          UPDATE registers r SET latest_raw_value = given.raw, latest_ts = given.ts
            FROM unnest(${values.map((v) => v.registerId)}::int[], ${values.map((v) => v.ts)}::float8[],
                        ${values.map((v) => v.rawValue)}::float8[]) AS given(id, ts, raw)
           WHERE r.id = given.id AND (r.latest_ts IS NULL OR r.latest_ts < given.ts)`;
      } catch (error) {
        for (const value of values) this.advance(value);
        throw error;
      }
    };
    // One flush at a time, in order; one that failed does not stop the next.
    this.flushing = this.flushing.then(write, write);
    return this.flushing;
  }
}
