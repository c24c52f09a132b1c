/** Registers with their latest values; GET /devices/{id}/registers polls this. */
import type { SqliteConnection } from "./connection.ts";
import type { LatestValues } from "./latest-values.ts";
import type { Synchronous } from "./resolved-operations.ts";

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
  isWritable: number;
  /** A writable register's bounds (engineering units); null otherwise. */
  writeMin: number | null;
  writeMax: number | null;
  description: string | null;
  latestRawValue: number | null;
  latestTs: number | null;
  latestText: string | null;
};

const registerSelect = `
  SELECT r.id AS id, r.uuid AS uuid, d.uuid AS modbusDeviceUuid, d.name AS modbusDeviceName,
         r.name AS name, r.address AS address, r.function_code AS functionCode,
         r.data_type AS dataType, r.unit AS unit, r.scale_factor AS scaleFactor,
         r.is_writable AS isWritable, r.write_min AS writeMin, r.write_max AS writeMax, r.description AS description,
         r.latest_raw_value AS latestRawValue, r.latest_ts AS latestTs, r.latest_text AS latestText
    FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id
   WHERE r.gateway_id = ?1 AND r.retired_at IS NULL`;
const registerOrder = " ORDER BY d.position, r.position, r.id";

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
  /** Every register in the store, retired ones too: internal id by public id. */
  allIds(): Promise<{ id: number; uuid: string }[]>;
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
  /** Every register (retired ones too) with gateway serial, device name and storage period. */
  catalog(): Promise<CatalogRegister[]>;
  /** On a central: the live registers of the gateways one site forwards (docs/fleet.md), with their storage periods. */
  ofSite(orgId: number, siteName: string): Promise<SiteRegister[]>;
}

/** A register a site forwards readings of: internal id, public id, storage period (ms, null: the default). */
export type SiteRegister = { id: number; uuid: string; storageIntervalMs: number | null };

/**
 * Prepared once per store: the registers endpoint is the one clients poll, so it
 * runs one cached statement and no query builder.
 */
export function sqliteRegisterStore({ sqlite }: SqliteConnection, latest: LatestValues): Synchronous<RegisterStore> {
  const all = sqlite.prepare<RegisterRow, [number]>(registerSelect + registerOrder);
  const ofDevice = sqlite.prepare<RegisterRow, [number, number]>(
    `${registerSelect} AND r.modbus_device_id = ?2${registerOrder}`,
  );
  const idsOfGateway = sqlite.prepare<{ id: number; uuid: string }, [number]>(
    "SELECT id, uuid FROM registers WHERE gateway_id = ?1",
  );
  const allIds = sqlite.prepare<{ id: number; uuid: string }, []>("SELECT id, uuid FROM registers");
  const historyColumns = `SELECT r.id AS id, r.uuid AS uuid, r.name AS name, r.unit AS unit, r.scale_factor AS scaleFactor,
            (SELECT d.uuid FROM modbus_devices d WHERE d.id = r.modbus_device_id) AS modbusDeviceUuid
       FROM registers r`;
  const historyAll = sqlite.prepare<HistoryRegister, [number]>(`${historyColumns} WHERE r.gateway_id = ?1`);
  const historyOne = sqlite.prepare<HistoryRegister, [number, string]>(
    `${historyColumns} WHERE r.gateway_id = ?1 AND r.uuid = ?2`,
  );
  const contexts = sqlite.prepare<RegisterContext, []>(
    `SELECT r.uuid AS uuid, r.name AS name, r.unit AS unit, r.scale_factor AS scaleFactor, d.name AS deviceName,
            d.slave_id AS slaveId, g.id AS gatewayId, g.name AS gatewayName, g.org_id AS orgId
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id`,
  );
  const latestTexts = sqlite.prepare<{ id: number; text: string }, []>(
    "SELECT id, latest_text AS text FROM registers WHERE latest_text IS NOT NULL",
  );
  const setText = sqlite.prepare<unknown, [number, string]>("UPDATE registers SET latest_text = ?2 WHERE id = ?1");
  const recordTexts = sqlite.transaction((texts: readonly { registerId: number; text: string }[]) => {
    for (const { registerId, text } of texts) setText.run(registerId, text);
  });
  // Latest values live in memory (latest-values.ts); the columns may lag behind them.
  const withLatest = (rows: RegisterRow[]) => {
    for (const row of rows) {
      const value = latest.get(row.id);
      if (value !== undefined) {
        row.latestRawValue = value.rawValue;
        row.latestTs = value.ts;
      }
    }
    return rows;
  };
  const catalog = sqlite.prepare<CatalogRegister, []>(
    `SELECT r.id AS id, r.uuid AS uuid, r.name AS name, r.unit AS unit, r.scale_factor AS scaleFactor,
            d.name AS deviceName, g.serial AS gatewaySerial, o.key AS orgKey, d.storage_interval_ms AS storageIntervalMs
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
       JOIN organizations o ON o.id = g.org_id`,
  );
  const ofSite = sqlite.prepare<SiteRegister, [number, string]>(
    `SELECT r.id AS id, r.uuid AS uuid, d.storage_interval_ms AS storageIntervalMs
       FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
      WHERE g.org_id = ?1 AND g.edge_site = ?2 AND g.retired_at IS NULL AND r.retired_at IS NULL`,
  );
  return {
    ofSite: (orgId, siteName) => ofSite.all(orgId, siteName),
    list: (gatewayId, modbusDeviceId) =>
      withLatest(modbusDeviceId === undefined ? all.all(gatewayId) : ofDevice.all(gatewayId, modbusDeviceId)),
    idsOfGateway: (gatewayId) => idsOfGateway.all(gatewayId),
    allIds: () => allIds.all(),
    historyRegisters: (gatewayId) => historyAll.all(gatewayId),
    historyRegister: (gatewayId, uuid) => historyOne.get(gatewayId, uuid),
    contexts: () => contexts.all(),
    latestTexts: () => new Map(latestTexts.all().map((row) => [row.id, row.text])),
    recordTexts: (texts) => recordTexts(texts),
    catalog: () => catalog.all(),
  };
}
