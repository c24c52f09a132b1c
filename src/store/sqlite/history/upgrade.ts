/**
 * Upgrade from the one-row-per-reading table. Migration 0011
 * renames `readings` to `readings_legacy`; on open, this moves its rows into the
 * block history register by register, in key order, each register in one
 * transaction that also deletes its rows (a range delete on the key). A crash
 * midway leaves only unconverted registers in the legacy table, so the next open
 * carries on where it stopped; the table is dropped once empty and the file
 * vacuumed down to what the blocks take.
 */
import type { Database } from "bun:sqlite";
import { type NewReading, readingEpochMs } from "../../contract/readings.ts";
import type { BlockHistory } from "./history.ts";

export interface LegacyConversion {
  registers: number;
  readings: number;
  ms: number;
}

const legacyTable = "readings_legacy";

/** Converts what the legacy table still holds; null when there is no legacy table. */
export function convertLegacyReadings(db: Database, history: BlockHistory, nowMs: number): LegacyConversion | null {
  const exists = db
    .query<{ name: string }, [string]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1")
    .get(legacyTable);
  if (exists === null) return null;
  const began = performance.now();
  const result: LegacyConversion = { registers: 0, readings: 0, ms: 0 };
  if (db.query(`SELECT 1 FROM ${legacyTable} LIMIT 1`).get() === null) {
    // A fresh store (its migrations made the table empty) or a conversion that emptied it: nothing to move.
    db.run(`DROP TABLE ${legacyTable}`);
    return result;
  }
  // Periods that ended go straight to blocks; only the current one to the tail.
  history.openFrom(nowMs);
  const nextRegister = db.prepare<{ id: number }, [number]>(
    `SELECT register_id AS id FROM ${legacyTable} WHERE register_id > ?1 ORDER BY register_id LIMIT 1`,
  );
  const rowsOf = db.prepare<{ seconds: number; raw: number | null }, [number]>(
    `SELECT ts_s AS seconds, raw_value AS raw FROM ${legacyTable} WHERE register_id = ?1 ORDER BY ts_s`,
  );
  const deleteOf = db.prepare<never, [number]>(`DELETE FROM ${legacyTable} WHERE register_id = ?1`);
  const convertRegister = db.transaction((registerId: number) => {
    const batch: NewReading[] = rowsOf
      .all(registerId)
      .map((row) => ({ registerId, ts: row.seconds * 1000 + readingEpochMs, rawValue: row.raw }));
    history.record(batch);
    deleteOf.run(registerId);
    return batch.length;
  });
  let after = Number.MIN_SAFE_INTEGER;
  for (let next = nextRegister.get(after); next !== null; next = nextRegister.get(after)) {
    result.readings += convertRegister(next.id);
    result.registers++;
    after = next.id;
  }
  db.run(`DROP TABLE ${legacyTable}`);
  // The row table took ~19 bytes a reading, the blocks ~1: give the space back
  // (VACUUM copies only the live pages, now a small fraction of the file).
  db.run("VACUUM");
  result.ms = performance.now() - began;
  return result;
}
