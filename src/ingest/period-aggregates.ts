/**
 * Per-period aggregates (docs/api.md section 4.6; docs/architecture.md "Reading
 * history"): ingest sees every polled value but stores one per storage period, so
 * it keeps, per register, the least, greatest and summed raw value and how many
 * values were read in the register's current storage period. When the period is
 * over (a value of a later period arrives, or the wall clock has passed its end)
 * the aggregate is finished and handed to the store with the next write, attached
 * to the reading the period stored. Values of a period that stored no reading
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
  let finished: PeriodAggregate[] = [];

  function finish(registerId: number, state: Running): void {
    if (state.storedAt === null || state.samples === 0) return;
    finished.push({
      registerId,
      ts: state.storedAt,
      // A steady value's mean is that value exactly (a sum of n float values over n need not be).
      aggregate: {
        rawMin: state.min,
        rawMax: state.max,
        rawMean: state.min === state.max ? state.min : state.sum / state.samples,
        samples: state.samples,
      },
    });
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
        if (state !== undefined) finish(registerId, state);
        state = { period, min: Number.NaN, max: Number.NaN, sum: 0, samples: 0, storedAt: null };
        running.set(registerId, state);
      }
      if (stored && state.storedAt === null) state.storedAt = ts;
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
          finish(registerId, state);
          running.delete(registerId);
        }
      }
      const taken = finished;
      finished = [];
      return taken;
    },

    /** Puts back aggregates a failed write did not store, to go with the next. */
    restore(aggregates: PeriodAggregate[]): void {
      finished = aggregates.concat(finished);
    },
  };
}
