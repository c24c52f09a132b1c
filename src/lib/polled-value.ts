/**
 * One value read from a register: what a poller reports, ingest stores and the rules
 * engine evaluates (the parts pass it along without importing each other).
 */
export interface PolledValue {
  /** Public register id (UUID). */
  registerId: string;
  /** When it was read (Unix ms). */
  ts: number;
  raw: number | null;
  /** Decoded text of a `string` register (raw is null then). */
  text?: string;
}
