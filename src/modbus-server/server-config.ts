/**
 * What a gateway's Modbus TCP server runs with (config `gateways[].modbus_server`,
 * docs/config.md): the config produces it, the server reads it.
 */
import type { Network } from "../lib/address-networks.ts";

/** A device as the server's clients address it. */
export interface ServedUnit {
  /** The unit id a client asks for (config `server_unit_id`, default `slave_id`). */
  unitId: number;
  /** The Modbus device's public id (the poller's). */
  deviceId: string;
  /** A read is answered from the words last read while they are at most this old (config `max_age_ms`, default the device's poll interval). */
  maxAgeMs: number;
}

export interface ModbusServerConfig {
  gatewayId: string;
  gatewaySerial: string;
  host: string;
  port: number;
  /** Function codes 5, 6, 15 and 16 passed to the bus; otherwise refused with exception 1. */
  writes: boolean;
  /** Networks whose clients are admitted; null: every address. */
  allow: Network[] | null;
  maxConnections: number;
  units: ServedUnit[];
}
