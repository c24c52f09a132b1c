/** Gateways and the Modbus devices they read, for one organisation at a time. */
import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
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

export type GatewayRow = {
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
};

function activeGatewaysOf(orgId: number, status?: GatewayStatus) {
  const conditions = [eq(gateways.orgId, orgId), isNull(gateways.retiredAt)];
  if (status !== undefined) conditions.push(eq(gateways.status, status));
  return and(...conditions);
}

/** GET /devices: most recently seen first; never-seen gateways last, then by name. */
export function listGateways(
  store: Store,
  orgId: number,
  filter: { status?: GatewayStatus; limit: number; offset: number },
): { rows: GatewayRow[]; total: number } {
  const where = activeGatewaysOf(orgId, filter.status);
  const rows = store.db
    .select(gatewayColumns)
    .from(gateways)
    .leftJoin(customers, eq(customers.id, gateways.customerId))
    .where(where)
    .orderBy(sql`${gateways.lastSeen} IS NULL`, desc(gateways.lastSeen), asc(gateways.name), asc(gateways.id))
    .limit(filter.limit)
    .offset(filter.offset)
    .all();
  const total = store.db.select({ total: count() }).from(gateways).where(where).get()?.total ?? 0;
  return { rows, total };
}

export function findGateway(store: Store, orgId: number, uuid: string): GatewayRow | null {
  return (
    store.db
      .select(gatewayColumns)
      .from(gateways)
      .leftJoin(customers, eq(customers.id, gateways.customerId))
      .where(and(activeGatewaysOf(orgId), eq(gateways.uuid, uuid)))
      .get() ?? null
  );
}

export function countGateways(store: Store, orgId: number): number {
  return store.db.select({ total: count() }).from(gateways).where(activeGatewaysOf(orgId)).get()?.total ?? 0;
}

export type ModbusDeviceRow = {
  id: number;
  uuid: string;
  name: string | null;
  slaveId: number;
  protocol: "rtu" | "tcp";
  ipAddress: string | null;
  port: number | null;
  pollIntervalMs: number | null;
  templateUuid: string | null;
  templateBrand: string | null;
  templateModel: string | null;
};

export function listModbusDevices(store: Store, gatewayId: number): ModbusDeviceRow[] {
  return store.db
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
    .where(and(eq(modbusDevices.gatewayId, gatewayId), isNull(modbusDevices.retiredAt)))
    .orderBy(asc(modbusDevices.position), asc(modbusDevices.id))
    .all();
}

export function findModbusDeviceId(store: Store, gatewayId: number, uuid: string): number | null {
  return (
    store.db
      .select({ id: modbusDevices.id })
      .from(modbusDevices)
      .where(and(eq(modbusDevices.gatewayId, gatewayId), eq(modbusDevices.uuid, uuid), isNull(modbusDevices.retiredAt)))
      .get()?.id ?? null
  );
}

/** Sets a gateway's reported state (used by the demo now, by the pollers later). */
export function setGatewayStatus(
  store: Store,
  gatewayUuid: string,
  state: { status: GatewayStatus; lastSeen: number | null; claimedAt?: number | null },
): void {
  store.db.update(gateways).set(state).where(eq(gateways.uuid, gatewayUuid)).run();
}
