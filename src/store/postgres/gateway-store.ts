/**
 * Gateways and their Modbus devices on PostgreSQL, as ../sqlite/gateways.ts. A status
 * change and its `device.*` event commit together (event-store.ts, `recordEventIn`: the event and its deliveries).
 */
import type { NewEvent } from "../contract/events.ts";
import type {
  GatewayRow,
  GatewayStatus,
  GatewayStatusRow,
  GatewayStore,
  ModbusDeviceRow,
} from "../contract/gateways.ts";
import type { Sql } from "./connection.ts";
import { recordEventIn } from "./event-store.ts";
import { firstOf, rowsOf } from "./rows.ts";

const gatewayColumns = `
  g.id, g.uuid, g.serial, g.name, g.status, g.firmware_ver AS "firmwareVer", g.ip_eth AS "ipEth",
  g.ip_wifi AS "ipWifi", g.ip_4g AS "ip4g", g.signal_4g AS "signal4g", g.last_seen::float8 AS "lastSeen",
  g.created_at::float8 AS "createdAt", g.claimed_at::float8 AS "claimedAt",
  c.uuid AS "customerUuid", c.name AS "customerName", c.city AS "customerCity"`;

export function postgresGatewayStore(sql: Sql): GatewayStore {
  async function list(
    orgId: number,
    filter: { status?: GatewayStatus; limit: number; offset: number },
  ): Promise<{ rows: GatewayRow[]; total: number }> {
    const status = filter.status ?? null;
    const rows = await rowsOf<GatewayRow>(sql`
      SELECT ${sql.unsafe(gatewayColumns)}
        FROM gateways g LEFT JOIN customers c ON c.id = g.customer_id
       WHERE g.org_id = ${orgId} AND g.retired_at IS NULL AND (${status}::text IS NULL OR g.status = ${status}::text)
       -- GET /devices: most recently seen first; never-seen gateways last, then by name.
       ORDER BY g.last_seen IS NULL, g.last_seen DESC, g.name, g.id
       LIMIT ${filter.limit} OFFSET ${filter.offset}`);
    return { rows, total: await total(orgId, status) };
  }

  function count(orgId: number): Promise<number> {
    return total(orgId, null);
  }

  async function total(orgId: number, status: GatewayStatus | null): Promise<number> {
    const row = await firstOf<{ total: number }>(sql`
      SELECT count(*)::int AS total FROM gateways
       WHERE org_id = ${orgId} AND retired_at IS NULL AND (${status}::text IS NULL OR status = ${status}::text)`);
    return row?.total ?? 0;
  }

  function find(orgId: number, uuid: string): Promise<GatewayRow | null> {
    return firstOf(sql`
      SELECT ${sql.unsafe(gatewayColumns)}
        FROM gateways g LEFT JOIN customers c ON c.id = g.customer_id
       WHERE g.org_id = ${orgId} AND g.retired_at IS NULL AND g.uuid = ${uuid.toLowerCase()}`);
  }

  async function locate(orgId: number, uuid: string): Promise<number | null> {
    const row = await firstOf<{ id: number }>(sql`
      SELECT id FROM gateways WHERE org_id = ${orgId} AND retired_at IS NULL AND uuid = ${uuid.toLowerCase()}`);
    return row?.id ?? null;
  }

  function modbusDevices(gatewayId: number): Promise<ModbusDeviceRow[]> {
    return rowsOf(sql`
      SELECT d.id, d.uuid, d.name, d.slave_id AS "slaveId", d.protocol, d.ip_address AS "ipAddress", d.port,
             d.poll_interval_ms AS "pollIntervalMs", t.uuid AS "templateUuid", t.brand AS "templateBrand",
             t.model AS "templateModel"
        FROM modbus_devices d LEFT JOIN device_templates t ON t.id = d.template_id
       WHERE d.gateway_id = ${gatewayId} AND d.retired_at IS NULL
       ORDER BY d.position, d.id`);
  }

  async function findModbusDeviceId(gatewayId: number, uuid: string): Promise<number | null> {
    const row = await firstOf<{ id: number }>(sql`
      SELECT id FROM modbus_devices
       WHERE gateway_id = ${gatewayId} AND uuid = ${uuid.toLowerCase()} AND retired_at IS NULL`);
    return row?.id ?? null;
  }

  function all(): Promise<{ id: number; uuid: string; orgId: number; serial: string; name: string }[]> {
    return rowsOf(sql`SELECT id, uuid, org_id AS "orgId", serial, name FROM gateways ORDER BY id`);
  }

  /** Sets the fields given (claimed_at only when given), as SQLite's update with the state object. */
  async function setStatus(
    gatewayUuid: string,
    state: { status: GatewayStatus; lastSeen: number | null; claimedAt?: number | null },
  ): Promise<void> {
    const setsClaimed = state.claimedAt !== undefined;
    await sql`
      UPDATE gateways SET status = ${state.status}, last_seen = ${state.lastSeen},
             claimed_at = CASE WHEN ${setsClaimed} THEN ${state.claimedAt ?? null}::bigint ELSE claimed_at END
       WHERE uuid = ${gatewayUuid}`;
  }

  function statusOf(gatewayUuid: string): Promise<GatewayStatusRow | null> {
    return firstOf(sql`
      SELECT id, serial, name, org_id AS "orgId", status, last_seen::float8 AS "lastSeen", edge_site AS "edgeSite"
        FROM gateways WHERE uuid = ${gatewayUuid}`);
  }

  /** The status and its event in one transaction (docs/api.md section 6: device.online / device.offline). */
  function changeStatus(
    gatewayId: number,
    status: GatewayStatus,
    lastSeen: number | null,
    event: NewEvent | null,
  ): Promise<void> {
    return sql.begin(async (tx) => {
      await tx`UPDATE gateways SET status = ${status}, last_seen = coalesce(${lastSeen}::bigint, last_seen) WHERE id = ${gatewayId}`;
      if (event !== null) await recordEventIn(tx, event);
    });
  }

  async function offlineAnnouncedDevices(): Promise<string[]> {
    const rows = await rowsOf<{ uuid: string }>(sql`
      SELECT uuid FROM modbus_devices WHERE offline_announced_at IS NOT NULL AND retired_at IS NULL`);
    return rows.map((row) => row.uuid);
  }

  /** Whether the device's offline stands, and its `modbus_device.*` event, in one transaction. */
  function announceModbusDevice(deviceUuid: string, offlineSince: number | null, event: NewEvent): Promise<void> {
    return sql.begin(async (tx) => {
      await tx`UPDATE modbus_devices SET offline_announced_at = ${offlineSince}::bigint WHERE uuid = ${deviceUuid}`;
      await recordEventIn(tx, event);
    });
  }

  /** One statement for the batch; a gateway named twice takes its last time, as SQLite's loop leaves it. */
  async function writeLastSeenAll(seen: readonly { gatewayId: number; at: number }[]): Promise<void> {
    if (seen.length === 0) return;
    const last = new Map<number, number>();
    for (const { gatewayId, at } of seen) last.set(gatewayId, at);
    await sql`
      UPDATE gateways g SET last_seen = given.at
        FROM unnest(${[...last.keys()]}::int[], ${[...last.values()]}::float8[]) AS given(id, at)
       WHERE g.id = given.id`;
  }

  return {
    list,
    count,
    find,
    locate,
    modbusDevices,
    findModbusDeviceId,
    all,
    setStatus,
    statusOf,
    changeStatus,
    writeLastSeenAll,
    offlineAnnouncedDevices,
    announceModbusDevice,
  };
}
