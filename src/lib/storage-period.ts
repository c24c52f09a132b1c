/**
 * The storage density rule (docs/api.md section 8.1, "history density"): at most one
 * stored reading per register per storage period. Periods are aligned on the Unix
 * epoch, so ingest, import and any store layout agree on which period a time is in.
 */

/** Used when a device's period is not known (docs/api.md section 8: one value per five minutes). */
export const defaultStorageIntervalMs = 300_000;

/** Stored times are whole seconds: a shorter period would put two readings in one second. */
export function effectiveStorageInterval(intervalMs: number | null | undefined): number {
  return Math.max(1000, intervalMs ?? defaultStorageIntervalMs);
}

/** The number of the storage period a time (Unix ms) falls in. */
export function storagePeriodOf(ts: number, intervalMs: number): number {
  return Math.floor(ts / intervalMs);
}
