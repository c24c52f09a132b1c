/**
 * Latest values on PostgreSQL: the `registers.latest_*` columns, written at once.
 * SQLite holds them in one process's memory and persists them rarely
 * (../latest-values.ts); central processes share them, so here every change is a
 * row update that any process reads at its next request. Each write is one
 * statement over the whole batch (atomic on its own).
 */
import type { LatestValue } from "../readings.ts";
import type { Sql } from "./connection.ts";

/** Each register's last value in `values` (the one given last wins, as in LatestValues.set). */
function lastOfEach(values: readonly LatestValue[]): LatestValue[] {
  const last = new Map<number, LatestValue>();
  for (const value of values) last.set(value.registerId, value);
  return [...last.values()];
}

function columns(values: LatestValue[]) {
  return {
    ids: values.map((value) => value.registerId),
    times: values.map((value) => value.ts),
    raws: values.map((value) => value.rawValue),
  };
}

/** Takes the values as given, in order: the value read last wins, even when its time is earlier (a clock step back). */
export async function setLatestIn(sql: Sql, values: readonly LatestValue[]): Promise<void> {
  if (values.length === 0) return;
  const { ids, times, raws } = columns(lastOfEach(values));
  await sql`
    UPDATE registers r SET latest_raw_value = given.raw, latest_ts = given.ts
      FROM unnest(${ids}::int[], ${times}::float8[], ${raws}::float8[]) AS given(id, ts, raw)
     WHERE r.id = given.id`;
}

/**
 * Takes a value only when it is newer than the one stored: exactly LatestValues.advance's
 * comparison (`held.ts < value.ts`, none held counts as older), so a reading at the
 * same time as the stored latest does not replace it. One conditional UPDATE: two
 * processes advancing the same register at once leave the newer value.
 */
export async function advanceLatestIn(sql: Sql, values: readonly LatestValue[]): Promise<void> {
  if (values.length === 0) return;
  const newest = new Map<number, LatestValue>();
  for (const value of values) {
    const held = newest.get(value.registerId);
    if (held === undefined || held.ts < value.ts) newest.set(value.registerId, value);
  }
  const { ids, times, raws } = columns([...newest.values()]);
  await sql`
    UPDATE registers r SET latest_raw_value = given.raw, latest_ts = given.ts
      FROM unnest(${ids}::int[], ${times}::float8[], ${raws}::float8[]) AS given(id, ts, raw)
     WHERE r.id = given.id AND (r.latest_ts IS NULL OR r.latest_ts < given.ts)`;
}
