/**
 * Per-period aggregates (docs/api.md section 4.6; docs/architecture.md "Reading
 * history"): ingest sees every polled value but stores one per storage period, so
 * it keeps, per register, the least, greatest and summed raw value and how many
 * values were read in the register's current storage period. When the period is
 * over (a value of a later period arrives, or the wall clock has passed its end)
 * the aggregate is finished; it is handed to the store with the register's next
 * stored reading (so the tail row of that reading carries it: the first value
 * of a period is not always the one stored), attached to the reading the period
 * stored. Values of a period that stored no reading
 * (skipped after a clock step back) give no aggregate.
 *
 * Only numbers count: a null raw value (no number) and NaN are left out of the
 * aggregate, so a period of nothing but those has none.
 */
import { storagePeriodOf } from "../lib/storage-period.ts";
import type { PeriodAggregate } from "../store/contract/readings.ts";

type Running = {
  period: number;
  min: number;
  max: number;
  sum: number;
  samples: number;
  /** Time (Unix ms) of the reading the period stored, once one was. */
  storedAt: number | null;
};

export function createPeriodAggregates() {
  const running = new Map<number, Running>();
  const intervals = new Map<number, number>();
  /** Finished aggregates ready to go with the next write. */
  let ready: PeriodAggregate[] = [];
  /** Finished aggregates waiting for their register's next stored reading, with their period. */
  const waiting = new Map<number, { period: number; aggregate: PeriodAggregate }[]>();

  function finish(registerId: number, state: Running, into: "ready" | "waiting"): void {
    if (state.storedAt === null || state.samples === 0) return;
    const aggregate: PeriodAggregate = {
      registerId,
      ts: state.storedAt,
      // A steady value's mean is that value exactly (a sum of n float values over n need not be).
      aggregate: {
        rawMin: state.min,
        rawMax: state.max,
        rawMean: state.min === state.max ? state.min : state.sum / state.samples,
        samples: state.samples,
      },
    };
    if (into === "ready") {
      ready.push(aggregate);
      return;
    }
    const list = waiting.get(registerId) ?? [];
    list.push({ period: state.period, aggregate });
    waiting.set(registerId, list);
  }

  return {
    /** Registers a register with its storage period (ms). */
    track(registerId: number, intervalMs: number): void {
      intervals.set(registerId, intervalMs);
    },

    /** Counts a value read at `ts`; `stored` when the density rule stored it (the period's reading). */
    add(registerId: number, ts: number, raw: number | null, stored: boolean): void {
      const intervalMs = intervals.get(registerId);
      if (intervalMs === undefined) return;
      const period = storagePeriodOf(ts, intervalMs);
      let state = running.get(registerId);
      if (state === undefined || state.period !== period) {
        if (state !== undefined) finish(registerId, state, "waiting");
        state = { period, min: Number.NaN, max: Number.NaN, sum: 0, samples: 0, storedAt: null };
        running.set(registerId, state);
      }
      if (stored && state.storedAt === null) state.storedAt = ts;
      if (stored) {
        // This reading's tail row carries what waited.
        for (const entry of waiting.get(registerId) ?? []) ready.push(entry.aggregate);
        waiting.delete(registerId);
      }
      if (raw === null || Number.isNaN(raw)) return;
      if (state.samples === 0 || raw < state.min) state.min = raw;
      if (state.samples === 0 || raw > state.max) state.max = raw;
      state.sum += raw;
      state.samples++;
    },

    /**
     * The aggregates finished since the last call, also those of periods followed
     * by a whole period without a value (a register no longer read: its device
     * went away); with `all`, also those of periods in progress (a clean stop).
     * Waiting a whole period, not the first poll's jitter, keeps a slow bus's
     * first poll of a period from finding its predecessor's aggregate gone
     * alone: it rides on that poll's tail row (docs/architecture.md "Reading history").
     */
    take(nowMs: number, all = false): PeriodAggregate[] {
      for (const [registerId, state] of running) {
        const intervalMs = intervals.get(registerId) as number;
        if (all || (state.period + 2) * intervalMs <= nowMs) {
          finish(registerId, state, "ready");
          running.delete(registerId);
        }
      }
      // No stored reading came for a whole period after it: it goes alone.
      for (const [registerId, list] of waiting) {
        const intervalMs = intervals.get(registerId) as number;
        const keep = list.filter((entry) => !all && (entry.period + 2) * intervalMs > nowMs);
        for (const entry of list) if (!keep.includes(entry)) ready.push(entry.aggregate);
        if (keep.length === 0) waiting.delete(registerId);
        else waiting.set(registerId, keep);
      }
      const taken = ready;
      ready = [];
      return taken;
    },

    /** Puts back aggregates a failed write did not store, to go with the next. */
    restore(aggregates: PeriodAggregate[]): void {
      ready = aggregates.concat(ready);
    },
  };
}
