/** Registers with their latest values; GET /devices/{id}/registers polls this. */

import type {
  CatalogRegister,
  HistoryRegister,
  RegisterContext,
  RegisterRow,
  RegisterStore,
  SiteRegister,
} from "../contract/registers.ts";
import type { SqliteConnection } from "./connection.ts";
import type { LatestValues } from "./latest-values.ts";
import { resolvedOperations } from "./resolved-operations.ts";

const registerSelect = `
  SELECT r.id AS id, r.uuid AS uuid, d.uuid AS modbusDeviceUuid, d.name AS modbusDeviceName,
         r.name AS name, r.address AS address, r.function_code AS functionCode,
         r.data_type AS dataType, r.unit AS unit, r.scale_factor AS scaleFactor,
         r.is_writable AS isWritable, r.write_min AS writeMin, r.write_max AS writeMax, r.description AS description,
         r.latest_raw_value AS latestRawValue, r.latest_ts AS latestTs, r.latest_text AS latestText,
         COALESCE(r.poll_interval_ms, d.poll_interval_ms) AS pollIntervalMs, d.storage_interval_ms AS storageIntervalMs,
         (SELECT g.edge_site FROM gateways g WHERE g.id = r.gateway_id) AS edgeSite
    FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id
   WHERE r.gateway_id = ?1 AND r.retired_at IS NULL`;
const registerOrder = " ORDER BY d.position, r.position, r.id";

/** A register row as SQLite reads it: `is_writable` is an integer column (0 or 1). */
type StoredRegisterRow = Omit<RegisterRow, "isWritable"> & { isWritable: number | boolean };

/**
 * Prepared once per store: the registers endpoint is the one clients poll, so it
 * runs one cached statement and no query builder.
 */
export function sqliteRegisterStore({ sqlite }: SqliteConnection, latest: LatestValues): RegisterStore {
  const all = sqlite.prepare<StoredRegisterRow, [number]>(registerSelect + registerOrder);
  const ofDevice = sqlite.prepare<StoredRegisterRow, [number, number]>(
    `${registerSelect} AND r.modbus_device_id = ?2${registerOrder}`,
  );
  const idsOfGateway = sqlite.prepare<{ id: number; uuid: string }, [number]>(
    "SELECT id, uuid FROM registers WHERE gateway_id = ?1",
  );
  const allIds = sqlite.prepare<{ id: number; uuid: string; scaleFactor: number | null }, []>(
    "SELECT id, uuid, scale_factor AS scaleFactor FROM registers",
  );
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
  const setScaleFactor = sqlite.prepare<unknown, [number, number]>(
    "UPDATE registers SET scale_factor = ?2 WHERE id = ?1",
  );
  const recordScaleFactors = sqlite.transaction((factors: readonly { registerId: number; scaleFactor: number }[]) => {
    for (const { registerId, scaleFactor } of factors) setScaleFactor.run(registerId, scaleFactor);
  });
  // Latest values live in memory (latest-values.ts); the columns may lag behind them.
  // The rows are changed in place into RegisterRows (the endpoint clients poll allocates nothing more).
  const withLatest = (rows: StoredRegisterRow[]): RegisterRow[] => {
    for (const row of rows) {
      row.isWritable = row.isWritable === 1;
      const value = latest.get(row.id);
      if (value !== undefined) {
        row.latestRawValue = value.rawValue;
        row.latestTs = value.ts;
      }
    }
    return rows as RegisterRow[];
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
  return resolvedOperations<RegisterStore>({
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
    recordScaleFactors: async (factors) => recordScaleFactors(factors),
    catalog: () => catalog.all(),
  });
}
