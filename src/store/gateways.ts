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
  const byUuid = db
    .select(gatewayColumns)
    .from(gateways)
    .leftJoin(customers, eq(customers.id, gateways.customerId))
    .where(and(eq(gateways.orgId, orgId), isNull(gateways.retiredAt), eq(gateways.uuid, sql.placeholder("uuid"))))
    .prepare();
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
    /** UUIDs are matched in any letter case (stored lower case). */
    find(organization: number, uuid: string) {
      return byUuid.get({ orgId: organization, uuid: uuid.toLowerCase() }) ?? null;
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
export type GatewayRow = NonNullable<ReturnType<GatewayQueries["find"]>>;
export type ModbusDeviceRow = ReturnType<GatewayQueries["modbusDevices"]>[number];

/** Sets a gateway's reported state (used by the demo now, by the pollers later). */
export function setGatewayStatus(
  store: Store,
  gatewayUuid: string,
  state: { status: GatewayStatus; lastSeen: number | null; claimedAt?: number | null },
): void {
  store.db.update(gateways).set(state).where(eq(gateways.uuid, gatewayUuid)).run();
}
