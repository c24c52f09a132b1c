/**
 * A register write's outcome, shared by the Modbus layer that performs
 * it, the audit that stores it and the HTTP door that answers it. Values are in
 * engineering units.
 */

/**
 * written: the device took the value and reads it back; refused: it answered with a
 * Modbus exception; mismatch: it acknowledged, but reads back something else (or
 * nothing); timeout: no answer to the write itself, so the outcome is unknown (never
 * retried); not_sent: nothing reached the device (no connection, no answer to the read
 * before the write, the queue did not get to it in time); invalid: the value was
 * refused before anything was sent (bounds, representability).
 */
export const registerWriteResults = ["written", "refused", "mismatch", "timeout", "not_sent", "invalid"] as const;
export type RegisterWriteResult = (typeof registerWriteResults)[number];

export interface RegisterWriteOutcome {
  result: RegisterWriteResult;
  valueBefore: number | null;
  readBack: number | null;
  /** Raw read-back, for the API's latest_raw_value. */
  readBackRaw: number | null;
  detail: string | null;
}

export interface RegisterWriteRequest {
  orgId: number;
  /** Who asks: `key:<prefix>` or `user:<username>`; stored in the audit. */
  actor: string;
  /** Public ids of the gateway and register. */
  gatewayId: string;
  registerId: string;
  /** Engineering units. */
  value: number;
}

/** Performs a write through the gateway's poller and records its audit; never throws for a device's answer. */
export type RegisterWriter = (
  request: RegisterWriteRequest,
) => Promise<RegisterWriteOutcome & { auditId: string | null }>;
