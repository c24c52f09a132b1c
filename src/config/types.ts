import type { Inventory } from "../lib/inventory.ts";
import type { RegisterDecoding } from "../lib/register-map.ts";

/** One thing wrong with a config file. `path` is like `gateways[2].devices[0].slave_id`; the root is "". */
export interface ConfigProblem {
  path: string;
  message: string;
}

export type ConfigResult = { ok: true; config: FieldhubConfig } | { ok: false; problems: ConfigProblem[] };

export const busTypes = ["tcp", "rtu", "rtu_over_tcp"] as const;
export type BusType = (typeof busTypes)[number];

export const baudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200] as const;
export const parities = ["none", "even", "odd"] as const;
export type Parity = (typeof parities)[number];

/**
 * How a gateway reaches its Modbus devices. The inventory (lib) has no place for
 * it, so the config keeps it beside the inventory for the poller.
 */
export type BusConfig =
  /** Modbus TCP: each device carries its own host and port. */
  | { type: "tcp" }
  /** Modbus RTU on a local serial port. */
  | {
      type: "rtu";
      path: string;
      baud: number;
      dataBits: 7 | 8;
      parity: Parity;
      stopBits: 1 | 2;
    }
  /** RTU frames tunnelled through one TCP connection (a serial-to-Ethernet converter). */
  | { type: "rtu_over_tcp"; host: string; port: number };

/** One Modbus device as the poller reads it. Ids are the inventory's. */
export interface PollingDevice {
  id: string;
  name: string | null;
  slaveId: number;
  /** On a tcp bus: the device's own host and port; null on rtu and rtu_over_tcp buses (the bus says where). */
  host: string | null;
  port: number | null;
  pollIntervalMs: number;
  /** How long to wait for one response. */
  timeoutMs: number;
  /** How many times a failed request is tried again within one poll. */
  retries: number;
  /** The most 16-bit registers one read request (function code 3 or 4) may ask for. */
  maxRegistersPerRequest: number;
  /** The largest run of unneeded addresses worth reading through to save a request. */
  maxGap: number;
  /** A pause between two requests to this device. */
  pauseMs: number;
  /** How often a reading is stored, independent of pollIntervalMs. */
  storageIntervalMs: number;
  /** In order: the template's registers, then the device's own. */
  registers: RegisterDecoding[];
}

/** One gateway (one bus) as the poller runs it. */
export interface PollingGateway {
  /** The gateway's public id (the inventory's). */
  id: string;
  serial: string;
  bus: BusConfig;
  heartbeatMs: number;
  devices: PollingDevice[];
}

export interface FieldhubConfig {
  server: { host: string; port: number; publicUrl: string | null };
  retention: { readingsDays: number };
  api: { rateLimitPerMinute: number };
  /** Fully resolved: every id decided, gateways grouped under their organisation. */
  inventory: Inventory;
  /** Bus settings by gateway serial, in file order. */
  buses: Map<string, BusConfig>;
  /** What each gateway polls and how, in file order. */
  polling: PollingGateway[];
}
