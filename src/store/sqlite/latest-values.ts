/**
 * Each register's latest value read, held in memory (latest values are
 * not rewritten to disk every second). The readings store moves them as ingest
 * hands them over; the registers store reads them from here. They are written to
 * `registers.latest_*` rarely: at a period close, every `persistEveryMs`, and when
 * the store closes. After a crash the newest stored reading, when newer than what
 * was persisted, stands in (reading-store.ts).
 */
import type { Database } from "bun:sqlite";
import type { LatestValue } from "../contract/readings.ts";

export class LatestValues {
  private readonly values = new Map<number, LatestValue>();
  private readonly unsaved = new Set<number>();

  constructor(private readonly db: Database) {
    for (const row of db
      .query<LatestValue, []>(
        "SELECT id AS registerId, latest_ts AS ts, latest_raw_value AS rawValue FROM registers WHERE latest_ts IS NOT NULL",
      )
      .iterate()) {
      this.values.set(row.registerId, row);
    }
  }

  get(registerId: number): LatestValue | undefined {
    return this.values.get(registerId);
  }

  /** Takes the value given: ingest hands them over in the order they were read. */
  set(value: LatestValue): void {
    this.values.set(value.registerId, value);
    this.unsaved.add(value.registerId);
  }

  /** Takes the value only when it is newer than the one held (history written out of order, a backfill). */
  advance(value: LatestValue): void {
    const held = this.values.get(value.registerId);
    if (held === undefined || held.ts < value.ts) this.set(value);
  }

  /** Writes the values changed since the last call, in one transaction. */
  persist(): number {
    if (this.unsaved.size === 0) return 0;
    const update = this.db.prepare<never, [number, number | null, number]>(
      "UPDATE registers SET latest_raw_value = ?2, latest_ts = ?3 WHERE id = ?1",
    );
    const ids = [...this.unsaved];
    this.db.transaction(() => {
      for (const id of ids) {
        const value = this.values.get(id);
        if (value !== undefined) update.run(id, value.rawValue, value.ts);
      }
    })();
    for (const id of ids) this.unsaved.delete(id);
    return ids.length;
  }
}
