/**
 * The health of each Modbus device and the registers its device refuses, as the
 * pollers see it: Modbus produces it, the HTTP door reads it (the parts pass it
 * along without importing each other; app/ wires the one to the other).
 */

/**
 * - `unknown`: not polled yet since this process started;
 * - `ok`: the last cycle answered in full;
 * - `degraded`: the last cycle answered, but a register is set aside or a request got no answer;
 * - `unreachable`: the last cycle got no answer, or the connection to the device is down;
 * - `quarantined`: silent for several cycles: probed with growing backoff (docs/polling.md).
 */
export const deviceHealthStatuses = ["unknown", "ok", "degraded", "unreachable", "quarantined"] as const;
export type DeviceHealthStatus = (typeof deviceHealthStatuses)[number];

export interface DeviceHealth {
  status: DeviceHealthStatus;
  /** When the device last answered (a Modbus exception is an answer too), Unix ms. */
  lastAnswerAt: number | null;
  /** The last failure in words ("timeout after 1000 ms at 3:0"), kept after the device recovers. */
  lastError: string | null;
  lastErrorAt: number | null;
  /** Registers of the device left out of its cycle because the device refuses them. */
  registersSetAside: number;
  /** While quarantined: when the next probe is due, Unix ms. */
  nextProbeAt: number | null;
  /** What went over the wire to and from the device since this process started. */
  counters: DeviceBusCounts;
}

/**
 * A device's bus counters since start (docs/polling.md, "Bus diagnostics"): every
 * request sent to its unit id on its connection (polls, writes, read-backs,
 * pass-through requests of the Modbus TCP server), what came back, and the poll
 * attempts that were retries.
 */
export interface DeviceBusCounts {
  requests: number;
  timeouts: number;
  /** Modbus exception answers by exception code. */
  exceptions: Record<string, number>;
  crcErrors: number;
  framingErrors: number;
  retries: number;
  /** Mean round trip of the requests, ms; null before the first. */
  meanResponseMs: number | null;
}

export const noBusCounts: DeviceBusCounts = {
  requests: 0,
  timeouts: 0,
  exceptions: {},
  crcErrors: 0,
  framingErrors: 0,
  retries: 0,
  meanResponseMs: null,
};

/** A register the device refused on its own: left out of the cycle until `retryAt`. */
export interface RegisterSetAside {
  reason: string;
  since: number;
  retryAt: number;
}

/** What readers of health (the HTTP door) see. */
export interface DeviceHealthReader {
  device(modbusDeviceId: string): DeviceHealth;
  /** Null when the register is read normally. */
  setAside(registerId: string): RegisterSetAside | null;
}

export const unknownHealth: DeviceHealth = {
  status: "unknown",
  lastAnswerAt: null,
  lastError: null,
  lastErrorAt: null,
  registersSetAside: 0,
  nextProbeAt: null,
  counters: noBusCounts,
};

/** For a process that polls nothing (tests of the HTTP door alone): every device unknown. */
export const noDeviceHealth: DeviceHealthReader = {
  device: () => unknownHealth,
  setAside: () => null,
};
