/** The registers domain of the store contract: registers with their latest values and the names history uses. */

export type RegisterRow = {
  id: number;
  uuid: string;
  modbusDeviceUuid: string;
  modbusDeviceName: string | null;
  name: string;
  address: number;
  functionCode: number | null;
  dataType: string;
  unit: string | null;
  scaleFactor: number | null;
  isWritable: boolean;
  /** A writable register's bounds (engineering units); null otherwise. */
  writeMin: number | null;
  writeMax: number | null;
  description: string | null;
  latestRawValue: number | null;
  latestTs: number | null;
  latestText: string | null;
  /** The interval it is polled at (ms): its own poll group's, else its device's; null when neither is known. */
  pollIntervalMs: number | null;
  /** Its device's storage period (ms); null when the default (docs/api.md section 8.1). */
  storageIntervalMs: number | null;
  /** On a central, the site that forwards this register's gateway (docs/fleet.md, "Forwarding"); null for a gateway polled here. */
  edgeSite: string | null;
};

/** A register as reading history presents it (retired registers too). */
export type HistoryRegister = {
  id: number;
  uuid: string;
  modbusDeviceUuid: string;
  name: string;
  unit: string | null;
  scaleFactor: number | null;
};

/** A register with its device and gateway, as alert rules describe it. */
export type RegisterContext = {
  uuid: string;
  name: string;
  unit: string | null;
  scaleFactor: number | null;
  deviceName: string | null;
  slaveId: number;
  gatewayId: number;
  gatewayName: string;
  orgId: number;
};

/** A register with the names history export and import use, and its storage period (ms, null when not known). */
export type CatalogRegister = {
  id: number;
  uuid: string;
  name: string;
  unit: string | null;
  scaleFactor: number | null;
  deviceName: string | null;
  gatewaySerial: string;
  orgKey: string;
  storageIntervalMs: number | null;
};

export interface RegisterStore {
  /** A gateway's active registers with their latest values, in config order; optionally one Modbus device's. */
  list(gatewayId: number, modbusDeviceId?: number): Promise<RegisterRow[]>;
  /** Every register the gateway ever had (retired ones too: their history is still history). */
  idsOfGateway(gatewayId: number): Promise<{ id: number; uuid: string }[]>;
  /**
   * Every register in the store, retired ones too: internal id by public id, and its
   * `scale_factor` (a site forwards the ones read from its devices, docs/fleet.md "Forwarding").
   */
  allIds(): Promise<{ id: number; uuid: string; scaleFactor: number | null }[]>;
  /** The gateway's registers (retired ones too) as reading history shows them. */
  historyRegisters(gatewayId: number): Promise<HistoryRegister[]>;
  /** One of them by public id (stored lower case), or null. */
  historyRegister(gatewayId: number, uuid: string): Promise<HistoryRegister | null>;
  /** Every register with its device, gateway and organisation. */
  contexts(): Promise<RegisterContext[]>;
  /** The stored text of every register that has one: internal id -> text. */
  latestTexts(): Promise<Map<number, string>>;
  /** New texts of `string` registers (internal id), one transaction; ingest writes only changed ones. */
  recordTexts(texts: readonly { registerId: number; text: string }[]): Promise<void>;
  /**
   * Scale factors read from the devices (config `scale_factor_register`: 10^sf), internal id ->
   * factor; the register's `scale_factor` from then on (docs/polling.md, "Scale factors read
   * from the device"). Ingest writes only changed ones.
   */
  recordScaleFactors(factors: readonly { registerId: number; scaleFactor: number }[]): Promise<void>;
  /** Every register (retired ones too) with gateway serial, device name and storage period. */
  catalog(): Promise<CatalogRegister[]>;
  /** On a central: the live registers of the gateways one site forwards (docs/fleet.md), with their storage periods. */
  ofSite(orgId: number, siteName: string): Promise<SiteRegister[]>;
}

/** A register a site forwards readings of: internal id, public id, storage period (ms, null: the default). */
export type SiteRegister = { id: number; uuid: string; storageIntervalMs: number | null };
