/**
 * A stored reading's per-period aggregate (docs/api.md section 4.6): the least,
 * greatest and mean raw value polled during its storage period and how many
 * values there were. The reading's own value stays the first one read in the period.
 */
import { scalerFor } from "./register-scaling.ts";

export type ReadingAggregate = { rawMin: number; rawMax: number; rawMean: number; samples: number };

/** The aggregate in engineering units; a negative scale factor turns the least raw value into the greatest value. */
export type ScaledAggregate = { min: number; max: number; mean: number };

export function aggregateScaler(scaleFactor: number | null): (aggregate: ReadingAggregate) => ScaledAggregate {
  const scale = scalerFor(scaleFactor);
  const flips = (scaleFactor ?? 1) < 0;
  return (aggregate) => {
    const low = scale(aggregate.rawMin);
    const high = scale(aggregate.rawMax);
    return { min: flips ? high : low, max: flips ? low : high, mean: scale(aggregate.rawMean) };
  };
}
