/**
 * Latest values on PostgreSQL: the `registers.latest_*` columns, written at once.
 * SQLite holds them in one process's memory and persists them rarely
 * (../latest-values.ts); central processes share them, so here every change is a
 * row update that any process reads at its next request, one statement per batch.
 * Here: `setLatest` (the value read last wins); `record` moves them forward with the
 * readings it stores, in its own statement (reading-store.ts).
 */
import type { LatestValue } from "../readings.ts";
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
