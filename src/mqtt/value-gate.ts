/**
 * Which values are worth publishing (docs/mqtt.md, "Values"): a register's first
 * value; a number that differs from the last one published by more than the
 * register's deadband; a text that differs; and any value once `max_interval_s`
 * has passed since the last publish, so a retained value is never older than that
 * while the register is read. Pure: the caller says when a value went out.
 */
export interface LastPublished {
  value: number | string;
  /** Monotonic time (ms) it was handed to the broker connection. */
  at: number;
}

export function worthPublishing(
  last: LastPublished | undefined,
  value: number | string,
  deadband: number,
  monotonicNow: number,
  maxIntervalMs: number,
): boolean {
  if (last === undefined) return true;
  if (monotonicNow - last.at >= maxIntervalMs) return true;
  if (typeof value === "string" || typeof last.value === "string") return value !== last.value;
  return Math.abs(value - last.value) > deadband;
}
