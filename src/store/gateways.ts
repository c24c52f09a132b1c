/**
 * Gateways and the Modbus devices they read, for one organisation at a time.
 * Statements are prepared once per store: building drizzle SQL on every API
 * request cost more than running it.
 */
import { and, asc, count, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { Store } from "./open.ts";
import { customers, deviceTemplates, type GatewayStatus, gateways, modbusDevices } from "./schema.ts";

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

type Gateway = typeof gateways.$inferSelect;
type Customer = typeof customers.$inferSelect;
/** A gateway as the API shows it: its own fields and its customer's. */
export type GatewayRow = Pick<
  Gateway,
  | "id"
  | "uuid"
  | "serial"
  | "name"
  | "status"
  | "firmwareVer"
  | "ipEth"
  | "ipWifi"
  | "ip4g"
  | "signal4g"
  | "lastSeen"
  | "createdAt"
  | "claimedAt"
> & { customerUuid: Customer["uuid"] | null; customerName: Customer["name"] | null; customerCity: Customer["city"] };

const orgId = sql.placeholder("orgId");
const statusFilter = sql.placeholder("status");
/** Active gateways of one organisation; `status` null means any status. */
const gatewaysOfOrg = and(
  eq(gateways.orgId, orgId),
  isNull(gateways.retiredAt),
  or(sql`${statusFilter} IS NULL`, eq(gateways.status, statusFilter)),
);

export function gatewayQueries(store: Store) {
  const { db } = store;
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
  const byUuid = store.sqlite.prepare<GatewayRow, [number, string]>(
    `SELECT g.id AS id, g.uuid AS uuid, g.serial AS serial, g.name AS name, g.status AS status,
            g.firmware_ver AS firmwareVer, g.ip_eth AS ipEth, g.ip_wifi AS ipWifi, g.ip_4g AS ip4g,
            g.signal_4g AS signal4g, g.last_seen AS lastSeen, g.created_at AS createdAt, g.claimed_at AS claimedAt,
            (SELECT c.uuid FROM customers c WHERE c.id = g.customer_id) AS customerUuid,
            (SELECT c.name FROM customers c WHERE c.id = g.customer_id) AS customerName,
            (SELECT c.city FROM customers c WHERE c.id = g.customer_id) AS customerCity
       FROM gateways g
      WHERE g.org_id = ?1 AND g.retired_at IS NULL AND g.uuid = ?2`,
  );
  const idByUuid = store.sqlite.prepare<{ id: number }, [number, string]>(
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

  return {
    list(organization: number, filter: { status?: GatewayStatus; limit: number; offset: number }) {
      const status = filter.status ?? null;
      return {
        rows: list.all({ orgId: organization, status, limit: filter.limit, offset: filter.offset }),
        total: total.get({ orgId: organization, status })?.total ?? 0,
      };
    },
    count(organization: number): number {
      return total.get({ orgId: organization, status: null })?.total ?? 0;
    },
    /** The gateway with its customer; UUIDs match in any letter case (stored lower case). */
    find(organization: number, uuid: string): GatewayRow | null {
      return byUuid.get(organization, uuid.toLowerCase());
    },
    /** Only the internal id, for routes that need no more of the gateway. */
    locate(organization: number, uuid: string): number | null {
      return idByUuid.get(organization, uuid.toLowerCase())?.id ?? null;
    },
    modbusDevices(gatewayId: number) {
      return devices.all({ gatewayId });
    },
    findModbusDeviceId(gatewayId: number, uuid: string): number | null {
      return deviceByUuid.get({ gatewayId, uuid: uuid.toLowerCase() })?.id ?? null;
    },
  };
}
export type GatewayQueries = ReturnType<typeof gatewayQueries>;
export type ModbusDeviceRow = ReturnType<GatewayQueries["modbusDevices"]>[number];

/** Sets a gateway's reported state (used by the demo now, by the pollers later). */
export function setGatewayStatus(
  store: Store,
  gatewayUuid: string,
  state: { status: GatewayStatus; lastSeen: number | null; claimedAt?: number | null },
): void {
  store.db.update(gateways).set(state).where(eq(gateways.uuid, gatewayUuid)).run();
}
