/** The gateways domain of the store contract: gateways, their Modbus devices and status. */
import type { ModbusProtocol } from "../../lib/inventory.ts";
import type { NewEvent } from "./events.ts";

export const gatewayStatuses = ["online", "offline", "pending", "error"] as const;
export type GatewayStatus = (typeof gatewayStatuses)[number];

/** A gateway as the API shows it: its own fields and its customer's. */
export interface GatewayRow {
  id: number;
  uuid: string;
  serial: string;
  name: string;
  status: GatewayStatus;
  firmwareVer: string | null;
  ipEth: string | null;
  ipWifi: string | null;
  ip4g: string | null;
  signal4g: number | null;
  lastSeen: number | null;
  createdAt: number;
  claimedAt: number | null;
  customerUuid: string | null;
  customerName: string | null;
  customerCity: string | null;
}

/** A Modbus device of a gateway, with its template if it has one. */
export interface ModbusDeviceRow {
  id: number;
  uuid: string;
  name: string | null;
  slaveId: number;
  protocol: ModbusProtocol;
  ipAddress: string | null;
  port: number | null;
  pollIntervalMs: number | null;
  templateUuid: string | null;
  templateBrand: string | null;
  templateModel: string | null;
}

/** What the status tracker keeps of a gateway. */
export interface GatewayStatusRow {
  id: number;
  serial: string;
  name: string;
  orgId: number;
  status: GatewayStatus;
  lastSeen: number | null;
  /** On a central: the site that forwards the gateway (docs/fleet.md), or null. */
  edgeSite: string | null;
}

export interface GatewayStore {
  /** Active gateways of an organisation, most recently seen first, with the total matching. */
  list(
    orgId: number,
    filter: { status?: GatewayStatus; limit: number; offset: number },
  ): Promise<{ rows: GatewayRow[]; total: number }>;
  count(orgId: number): Promise<number>;
  /** The gateway with its customer; UUIDs match in any letter case (stored lower case). */
  find(orgId: number, uuid: string): Promise<GatewayRow | null>;
  /** Only the internal id, for routes that need no more of the gateway. */
  locate(orgId: number, uuid: string): Promise<number | null>;
  modbusDevices(gatewayId: number): Promise<ModbusDeviceRow[]>;
  findModbusDeviceId(gatewayId: number, uuid: string): Promise<number | null>;
  /** Every gateway, retired ones too: internal id, public id, organisation, serial and name. */
  all(): Promise<{ id: number; uuid: string; orgId: number; serial: string; name: string }[]>;
  /** Sets a gateway's reported state as given (the demo and tests; the tracker uses changeStatus). */
  setStatus(
    gatewayUuid: string,
    state: { status: GatewayStatus; lastSeen: number | null; claimedAt?: number | null },
  ): Promise<void>;
  /** A gateway's status and last-seen time as stored, by public id. */
  statusOf(gatewayUuid: string): Promise<GatewayStatusRow | null>;
  /**
   * Writes a new status (and `lastSeen`, when given) and records `event` if any
   * (its `device.*` event, built by deviceStatusEvent), in one transaction.
   */
  changeStatus(
    gatewayId: number,
    status: GatewayStatus,
    lastSeen: number | null,
    event: NewEvent | null,
  ): Promise<void>;
  /**
   * Sets last_seen of several gateways to the wall time of each one's latest answer
   * (earlier than before after a clock step back), in one transaction (one commit).
   */
  writeLastSeenAll(seen: readonly { gatewayId: number; at: number }[]): Promise<void>;
  /** The public ids of the active Modbus devices whose `modbus_device.offline` stands (no `online` since). */
  offlineAnnouncedDevices(): Promise<string[]>;
  /**
   * Records a Modbus device's `modbus_device.*` event (built by modbusDeviceStatusEvent)
   * and whether its offline stands (`offlineSince`, null once online), in one transaction.
   */
  announceModbusDevice(deviceUuid: string, offlineSince: number | null, event: NewEvent): Promise<void>;
}
