/**
 * The equipment inventory as the config describes it, in the shape the store
 * keeps it: organisations, customers, gateways, Modbus devices and registers, each
 * with its decided, stable public id. The config produces it; the store syncs it.
 */

export const modbusProtocols = ["rtu", "tcp"] as const;
export type ModbusProtocol = (typeof modbusProtocols)[number];

export interface InventoryRegister {
  id: string;
  name: string;
  address: number;
  functionCode: number | null;
  dataType: string;
  unit: string | null;
  scaleFactor: number | null;
  /**
   * The scale factor is read from the device (config `scale_factor_register`): a sync keeps
   * the stored one (the last read, docs/polling.md) while `scaleFactor` is null (the config's);
   * a site's inventory brings the one its store holds, which a central takes (docs/fleet.md).
   */
  scaleFactorFromDevice?: boolean;
  isWritable: boolean;
  /** A writable register's bounds, in engineering units (null when not writable). */
  writeMin: number | null;
  writeMax: number | null;
  description: string | null;
  /** Its own poll group's interval (config `poll_interval_ms`, docs/polling.md "Poll groups"); absent: its device's. */
  pollIntervalMs?: number;
}

export interface InventoryModbusDevice {
  id: string;
  name: string | null;
  slaveId: number;
  protocol: ModbusProtocol;
  ipAddress: string | null;
  port: number | null;
  pollIntervalMs: number | null;
  /** Storage period (ms): at most one stored reading per register per period (lib/storage-period.ts); absent: the default. */
  storageIntervalMs?: number;
  template: { id: string; brand: string; model: string } | null;
  registers: InventoryRegister[];
}

export interface InventoryGateway {
  id: string;
  serial: string;
  name: string;
  /** Customer key within the organisation, or null. */
  customer: string | null;
  heartbeatMs: number;
  firmwareVer: string | null;
  ipEth: string | null;
  ipWifi: string | null;
  ip4g: string | null;
  signal4g: number | null;
  modbusDevices: InventoryModbusDevice[];
}

export interface InventoryCustomer {
  id: string;
  key: string;
  name: string;
  city: string | null;
}

export interface InventoryOrganization {
  id: string;
  key: string;
  name: string;
  /** Register writes through the API are allowed (config `writes_enabled`; docs/api.md section 5.8). */
  writesEnabled: boolean;
  customers: InventoryCustomer[];
  gateways: InventoryGateway[];
}

export interface Inventory {
  organizations: InventoryOrganization[];
}
