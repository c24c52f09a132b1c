/**
 * Registers on PostgreSQL, as ../sqlite/registers.ts: a gateway's registers with their
 * latest values (read from the columns every process writes, latest-values.ts),
 * the ids and views history and alert rules use, and `string` registers' texts.
 */
import type {
  CatalogRegister,
  HistoryRegister,
  RegisterContext,
  RegisterRow,
  RegisterStore,
  SiteRegister,
} from "../contract/registers.ts";
import type { Sql } from "./connection.ts";
import { firstOf, rowsOf } from "./rows.ts";

const registerColumns = `
  r.id, r.uuid, d.uuid AS "modbusDeviceUuid", d.name AS "modbusDeviceName", r.name, r.address,
  r.function_code AS "functionCode", r.data_type AS "dataType", r.unit, r.scale_factor AS "scaleFactor",
  r.is_writable AS "isWritable", r.write_min AS "writeMin", r.write_max AS "writeMax", r.description,
  r.latest_raw_value AS "latestRawValue", r.latest_ts::float8 AS "latestTs", r.latest_text AS "latestText",
  COALESCE(r.poll_interval_ms, d.poll_interval_ms) AS "pollIntervalMs", d.storage_interval_ms AS "storageIntervalMs",
  (SELECT g.edge_site FROM gateways g WHERE g.id = r.gateway_id) AS "edgeSite"`;

const historyColumns = `
  r.id, r.uuid, r.name, r.unit, r.scale_factor AS "scaleFactor",
  (SELECT d.uuid FROM modbus_devices d WHERE d.id = r.modbus_device_id) AS "modbusDeviceUuid"`;

export function postgresRegisterStore(sql: Sql): RegisterStore {
  function list(gatewayId: number, modbusDeviceId?: number): Promise<RegisterRow[]> {
    const device = modbusDeviceId ?? null;
    return rowsOf(sql`
      SELECT ${sql.unsafe(registerColumns)}
        FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id
       WHERE r.gateway_id = ${gatewayId} AND r.retired_at IS NULL
         AND (${device}::int IS NULL OR r.modbus_device_id = ${device}::int)
       ORDER BY d.position, r.position, r.id`);
  }

  function idsOfGateway(gatewayId: number): Promise<{ id: number; uuid: string }[]> {
    return rowsOf(sql`SELECT id, uuid FROM registers WHERE gateway_id = ${gatewayId} ORDER BY id`);
  }

  function allIds(): Promise<{ id: number; uuid: string; scaleFactor: number | null }[]> {
    return rowsOf(sql`SELECT id, uuid, scale_factor AS "scaleFactor" FROM registers ORDER BY id`);
  }

  function historyRegisters(gatewayId: number): Promise<HistoryRegister[]> {
    return rowsOf(sql`
      SELECT ${sql.unsafe(historyColumns)} FROM registers r WHERE r.gateway_id = ${gatewayId} ORDER BY r.id`);
  }

  function historyRegister(gatewayId: number, uuid: string): Promise<HistoryRegister | null> {
    return firstOf(sql`
      SELECT ${sql.unsafe(historyColumns)} FROM registers r WHERE r.gateway_id = ${gatewayId} AND r.uuid = ${uuid}`);
  }

  function contexts(): Promise<RegisterContext[]> {
    return rowsOf(sql`
      SELECT r.uuid, r.name, r.unit, r.scale_factor AS "scaleFactor", d.name AS "deviceName", d.slave_id AS "slaveId",
             g.id AS "gatewayId", g.name AS "gatewayName", g.org_id AS "orgId"
        FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
       ORDER BY r.id`);
  }

  async function latestTexts(): Promise<Map<number, string>> {
    const rows = await rowsOf<{ id: number; text: string }>(
      sql`SELECT id, latest_text AS text FROM registers WHERE latest_text IS NOT NULL`,
    );
    return new Map(rows.map((row) => [row.id, row.text]));
  }

  /** One statement for the batch; a register named twice takes its last text, as SQLite's loop leaves it. */
  async function recordTexts(texts: readonly { registerId: number; text: string }[]): Promise<void> {
    if (texts.length === 0) return;
    const last = new Map<number, string>();
    for (const { registerId, text } of texts) last.set(registerId, text);
    await sql`
      UPDATE registers r SET latest_text = given.text
        FROM unnest(${[...last.keys()]}::int[], ${[...last.values()]}::text[]) AS given(id, text)
       WHERE r.id = given.id`;
  }

  async function recordScaleFactors(factors: readonly { registerId: number; scaleFactor: number }[]): Promise<void> {
    if (factors.length === 0) return;
    const last = new Map<number, number>();
    for (const { registerId, scaleFactor } of factors) last.set(registerId, scaleFactor);
    await sql`
      UPDATE registers r SET scale_factor = given.factor
        FROM unnest(${[...last.keys()]}::int[], ${[...last.values()]}::float8[]) AS given(id, factor)
       WHERE r.id = given.id`;
  }

  function catalog(): Promise<CatalogRegister[]> {
    return rowsOf(sql`
      SELECT r.id, r.uuid, r.name, r.unit, r.scale_factor AS "scaleFactor", d.name AS "deviceName",
             g.serial AS "gatewaySerial", o.key AS "orgKey", d.storage_interval_ms AS "storageIntervalMs"
        FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
        JOIN organizations o ON o.id = g.org_id
       ORDER BY r.id`);
  }

  function ofSite(orgId: number, siteName: string): Promise<SiteRegister[]> {
    return rowsOf(sql`
      SELECT r.id, r.uuid, d.storage_interval_ms AS "storageIntervalMs"
        FROM registers r JOIN modbus_devices d ON d.id = r.modbus_device_id JOIN gateways g ON g.id = r.gateway_id
       WHERE g.org_id = ${orgId} AND g.edge_site = ${siteName} AND g.retired_at IS NULL AND r.retired_at IS NULL`);
  }

  return {
    list,
    idsOfGateway,
    allIds,
    historyRegisters,
    historyRegister,
    contexts,
    latestTexts,
    recordTexts,
    recordScaleFactors,
    catalog,
    ofSite,
  };
}
