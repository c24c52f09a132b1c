/**
 * Gateways and the Modbus devices they read, for one organisation at a time.
 * Statements are prepared once per store: building drizzle SQL on every API
 * request cost more than running it.
 */
import { and, asc, count, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { NewEvent } from "../contract/events.ts";
import type { GatewayRow, GatewayStatus, GatewayStatusRow, GatewayStore } from "../contract/gateways.ts";
import type { SqliteConnection } from "./connection.ts";
import type { EventRecorder } from "./events.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import { customers, deviceTemplates, gateways, modbusDevices } from "./schema.ts";

const gatewayColumns = {
  id: gateways.id,
  uuid: gateways.uuid,
  serial: gateways.serial,
  name: gateways.name,
  status: gateways.status,
  firmwareVer: gateways.firmwareVer,
  ipEth: gateways.ipEth,
  ipWifi: gateways.ipWifi,
  ip4g: gateways.ip4g,
  signal4g: gateways.signal4g,
  lastSeen: gateways.lastSeen,
  createdAt: gateways.createdAt,
  claimedAt: gateways.claimedAt,
  customerUuid: customers.uuid,
  customerName: customers.name,
  customerCity: customers.city,
};

const orgId = sql.placeholder("orgId");
const statusFilter = sql.placeholder("status");
/** Active gateways of one organisation; `status` null means any status. */
const gatewaysOfOrg = and(
  eq(gateways.orgId, orgId),
  isNull(gateways.retiredAt),
  or(sql`${statusFilter} IS NULL`, eq(gateways.status, statusFilter)),
);

export function sqliteGatewayStore({ sqlite, db }: SqliteConnection, recordEvent: EventRecorder): GatewayStore {
  const list = db
    .select(gatewayColumns)
    .from(gateways)
    .leftJoin(customers, eq(customers.id, gateways.customerId))
    .where(gatewaysOfOrg)
    // GET /devices: most recently seen first; never-seen gateways last, then by name.
    .orderBy(sql`${gateways.lastSeen} IS NULL`, desc(gateways.lastSeen), asc(gateways.name), asc(gateways.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare();
  const total = db.select({ total: count() }).from(gateways).where(gatewaysOfOrg).prepare();
  // Single-row lookups run on every request: raw statements with scalar
  // subqueries, which SQLite answers several times faster than the same join.
  const byUuid = sqlite.prepare<GatewayRow, [number, string]>(
    `SELECT g.id AS id, g.uuid AS uuid, g.serial AS serial, g.name AS name, g.status AS status,
            g.firmware_ver AS firmwareVer, g.ip_eth AS ipEth, g.ip_wifi AS ipWifi, g.ip_4g AS ip4g,
            g.signal_4g AS signal4g, g.last_seen AS lastSeen, g.created_at AS createdAt, g.claimed_at AS claimedAt,
            (SELECT c.uuid FROM customers c WHERE c.id = g.customer_id) AS customerUuid,
            (SELECT c.name FROM customers c WHERE c.id = g.customer_id) AS customerName,
            (SELECT c.city FROM customers c WHERE c.id = g.customer_id) AS customerCity
       FROM gateways g
      WHERE g.org_id = ?1 AND g.retired_at IS NULL AND g.uuid = ?2`,
  );
  const idByUuid = sqlite.prepare<{ id: number }, [number, string]>(
    "SELECT id FROM gateways WHERE org_id = ?1 AND retired_at IS NULL AND uuid = ?2",
  );
  const devices = db
    .select({
      id: modbusDevices.id,
      uuid: modbusDevices.uuid,
      name: modbusDevices.name,
      slaveId: modbusDevices.slaveId,
      protocol: modbusDevices.protocol,
      ipAddress: modbusDevices.ipAddress,
      port: modbusDevices.port,
      pollIntervalMs: modbusDevices.pollIntervalMs,
      templateUuid: deviceTemplates.uuid,
      templateBrand: deviceTemplates.brand,
      templateModel: deviceTemplates.model,
    })
    .from(modbusDevices)
    .leftJoin(deviceTemplates, eq(deviceTemplates.id, modbusDevices.templateId))
    .where(and(eq(modbusDevices.gatewayId, sql.placeholder("gatewayId")), isNull(modbusDevices.retiredAt)))
    .orderBy(asc(modbusDevices.position), asc(modbusDevices.id))
    .prepare();
  const deviceByUuid = db
    .select({ id: modbusDevices.id })
    .from(modbusDevices)
    .where(
      and(
        eq(modbusDevices.gatewayId, sql.placeholder("gatewayId")),
        eq(modbusDevices.uuid, sql.placeholder("uuid")),
        isNull(modbusDevices.retiredAt),
      ),
    )
    .prepare();

  const all = sqlite.prepare<{ id: number; uuid: string; orgId: number; serial: string; name: string }, []>(
    "SELECT id, uuid, org_id AS orgId, serial, name FROM gateways",
  );
  const statusOf = sqlite.prepare<GatewayStatusRow, [string]>(
    `SELECT id, serial, name, org_id AS orgId, status, last_seen AS lastSeen, edge_site AS edgeSite
       FROM gateways WHERE uuid = ?1`,
  );
  const writeStatus = sqlite.prepare<never, [number, string, number | null]>(
    "UPDATE gateways SET status = ?2, last_seen = coalesce(?3, last_seen) WHERE id = ?1",
  );
  const updateLastSeen = sqlite.prepare<never, [number, number]>("UPDATE gateways SET last_seen = ?2 WHERE id = ?1");
  const offlineAnnounced = sqlite.prepare<{ uuid: string }, []>(
    "SELECT uuid FROM modbus_devices WHERE offline_announced_at IS NOT NULL AND retired_at IS NULL",
  );
  const writeAnnounced = sqlite.prepare<never, [string, number | null]>(
    "UPDATE modbus_devices SET offline_announced_at = ?2 WHERE uuid = ?1",
  );

  return resolvedOperations<GatewayStore>({
    list(organization, filter) {
      const status = filter.status ?? null;
      return {
        rows: list.all({ orgId: organization, status, limit: filter.limit, offset: filter.offset }),
        total: total.get({ orgId: organization, status })?.total ?? 0,
      };
    },
    count(organization) {
      return total.get({ orgId: organization, status: null })?.total ?? 0;
    },
    find(organization, uuid) {
      return byUuid.get(organization, uuid.toLowerCase());
    },
    locate(organization, uuid) {
      return idByUuid.get(organization, uuid.toLowerCase())?.id ?? null;
    },
    modbusDevices(gatewayId) {
      return devices.all({ gatewayId });
    },
    findModbusDeviceId(gatewayId, uuid) {
      return deviceByUuid.get({ gatewayId, uuid: uuid.toLowerCase() })?.id ?? null;
    },
    all: () => all.all(),
    setStatus(gatewayUuid, state) {
      db.update(gateways).set(state).where(eq(gateways.uuid, gatewayUuid)).run();
    },
    statusOf: (gatewayUuid) => statusOf.get(gatewayUuid),
    changeStatus: sqlite.transaction(
      (gatewayId: number, status: GatewayStatus, lastSeen: number | null, event: NewEvent | null) => {
        writeStatus.run(gatewayId, status, lastSeen);
        if (event !== null) recordEvent(event);
      },
    ),
    writeLastSeenAll: sqlite.transaction((seen: readonly { gatewayId: number; at: number }[]) => {
      for (const { gatewayId, at } of seen) updateLastSeen.run(gatewayId, at);
    }),
    offlineAnnouncedDevices: () => offlineAnnounced.all().map((row) => row.uuid),
    announceModbusDevice: sqlite.transaction((deviceUuid: string, offlineSince: number | null, event: NewEvent) => {
      writeAnnounced.run(deviceUuid, offlineSince);
      recordEvent(event);
    }),
  });
}
