/**
 * What the pollers need to know about each gateway: its bus and its devices with
 * their register maps. The config produces it; the Modbus layer consumes it.
 */
import type { RegisterDecoding } from "./register-model.ts";
import type { SunSpecPlace } from "./sunspec/points.ts";

export const parities = ["none", "even", "odd"] as const;
export type Parity = (typeof parities)[number];

/** How a gateway reaches its Modbus devices. */
export type BusConfig =
  /** Modbus TCP: each device carries its own host and port. */
  | { type: "tcp" }
  /** Modbus RTU on a local serial port. */
  | { type: "rtu"; path: string; baud: number; dataBits: 7 | 8; parity: Parity; stopBits: 1 | 2 }
  /** RTU frames tunnelled through one TCP connection (a serial-to-Ethernet converter). */
  | { type: "rtu_over_tcp"; host: string; port: number };

/** A peer that comes back is polled again within this when its bus sets no `reconnect_max_s`. */
export const defaultReconnectMaxMs = 30_000;

/** A register as polled: how it is read, and its name for log lines. */
export interface PolledRegister extends RegisterDecoding {
  name?: string;
  /** The register's own poll interval (config `poll_interval_ms`); its device's when absent. */
  pollIntervalMs?: number;
  /**
   * The register of the same device holding this one's scale exponent (config
   * `scale_factor_register`; docs/polling.md "Scale factors read from the device"):
   * value = raw x 10^sf, both read in the same cycle.
   */
  scaleFactorRegisterId?: string;
  /** The raw value (as decoded) that means "no value" (config `not_implemented`, SunSpec's per type): read as null. */
  notImplemented?: number;
  /** A SunSpec point: its address is found from the device's model chain (docs/sunspec.md), not `address`. */
  sunspec?: SunSpecPlace;
}

export interface PollingDevice {
  /** Public Modbus device id (UUID). */
  id: string;
  name: string | null;
  slaveId: number;
  /** Modbus TCP only. */
  host: string | null;
  port: number | null;
  pollIntervalMs: number;
  timeoutMs: number;
  retries: number;
  maxRegistersPerRequest: number;
  maxGap: number;
  pauseMs: number;
  storageIntervalMs: number;
  registers: PolledRegister[];
}

export interface PollingGateway {
  /** Public gateway id (UUID). */
  id: string;
  serial: string;
  /** For log lines; the serial stands in when absent. */
  name?: string;
  bus: BusConfig;
  heartbeatMs: number;
  /** Longest wait between two attempts to (re)connect the bus (config `bus.reconnect_max_s`); default `defaultReconnectMaxMs`. */
  reconnectMaxMs?: number;
  devices: PollingDevice[];
}
