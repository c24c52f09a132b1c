/**
 * One value read from a register: what a poller reports, ingest stores and the rules
 * engine evaluates (the parts pass it along without importing each other).
 */
export interface PolledValue {
  /** Public register id (UUID). */
  registerId: string;
  /** When it was read (Unix ms, wall clock). */
  ts: number;
  /**
   * When it was read on the monotonic clock (lib/clock.ts), which a wall-clock
   * step does not move; ingest judges storage density on it. Absent (values
   * replayed by tests or tools), the value counts as read `now - ts` ago.
   */
  monotonic?: number;
  raw: number | null;
  /**
   * The register's scale factor as read from the device in the same cycle (config
   * `scale_factor_register`: 10^sf); value = raw x scaleFactor. Absent: the register's
   * configured scale_factor applies.
   */
  scaleFactor?: number;
  /** Decoded text of a `string` register (raw is null then). */
  text?: string;
}
