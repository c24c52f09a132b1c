/**
 * Brings the store's organisations, customers, gateways, Modbus devices and
 * registers in line with the config, which is their source of truth. Ids come in
 * already decided (stable across restarts and edits); rows that left the config are
 * retired, not deleted, so their history stays readable.
 */
import { and, eq, isNull, notInArray, or, type SQL, sql } from "drizzle-orm";
import type { Inventory, InventoryGateway, InventoryModbusDevice } from "../../lib/inventory.ts";
import type { GatewayStatus } from "../contract/gateways.ts";
import { GatewayOwnedElsewhereError, type InventoryStore } from "../contract/inventory.ts";
import type { Db, SqliteConnection } from "./connection.ts";
import { resolvedOperations } from "./resolved-operations.ts";
import {
  apiKeys,
  customers,
  deviceTemplates,
  gateways,
  modbusDevices,
  organizations,
  registers,
  webhookEndpoints,
} from "./schema.ts";

/** Initial status a gateway gets when it first appears: pending until it reports. */
const firstStatus: GatewayStatus = "pending";

export function sqliteInventoryStore({ db }: SqliteConnection): InventoryStore {
  return resolvedOperations<InventoryStore>({
    sync: (inventory, now) => syncInventory(db, inventory, now),
    syncSite: (site, list, now) => syncSiteGateways(db, site, list, now),
  });
}

function syncSiteGateways(
  db: Db,
  site: { orgId: number; name: string },
  list: readonly InventoryGateway[],
  now: number,
): void {
  db.transaction((tx) => {
    const liveGatewayIds: number[] = [];
    for (const gateway of list) {
      const owners = tx
        .select({ orgId: gateways.orgId, edgeSite: gateways.edgeSite })
        .from(gateways)
        .where(or(eq(gateways.uuid, gateway.id), eq(gateways.serial, gateway.serial)))
        .all();
      if (owners.some((owner) => owner.orgId !== site.orgId || owner.edgeSite !== site.name)) {
        throw new GatewayOwnedElsewhereError(gateway.serial);
      }
      const values = gatewayColumns(gateway, { orgId: site.orgId, customerId: null, edgeSite: site.name });
      liveGatewayIds.push(upsertGateway(tx, gateway, values, now));
    }
    retireMissing(
      tx,
      gateways,
      gateways.id,
      liveGatewayIds,
      now,
      and(eq(gateways.orgId, site.orgId), eq(gateways.edgeSite, site.name)),
    );
  });
}

/** A gateway as its list gives it (a new one `firstStatus`), with its Modbus devices; returns its row id. */
function upsertGateway(
  tx: Tx,
  gateway: InventoryGateway,
  values: ReturnType<typeof gatewayColumns>,
  now: number,
): number {
  const row = tx
    .insert(gateways)
    .values({ uuid: gateway.id, status: firstStatus, createdAt: now, ...values })
    .onConflictDoUpdate({ target: gateways.uuid, set: values })
    .returning({ id: gateways.id })
    .get();
  syncModbusDevices(tx, row.id, gateway.modbusDevices, now);
  return row.id;
}

function syncInventory(db: Db, inventory: Inventory, now: number): void {
  db.transaction((tx) => {
    const liveGatewayIds: number[] = [];
    const liveOrgIds: number[] = [];
    for (const org of inventory.organizations) {
      const orgRow = tx
        .insert(organizations)
        .values({ uuid: org.id, key: org.key, name: org.name, createdAt: now, writesEnabled: org.writesEnabled })
        .onConflictDoUpdate({
          target: organizations.uuid,
          set: { key: org.key, name: org.name, writesEnabled: org.writesEnabled },
        })
        .returning({ id: organizations.id })
        .get();
      liveOrgIds.push(orgRow.id);

      const customerIds = new Map<string, number>();
      for (const customer of org.customers) {
        const row = tx
          .insert(customers)
          .values({ uuid: customer.id, orgId: orgRow.id, key: customer.key, name: customer.name, city: customer.city })
          .onConflictDoUpdate({
            target: customers.uuid,
            set: { orgId: orgRow.id, key: customer.key, name: customer.name, city: customer.city },
          })
          .returning({ id: customers.id })
          .get();
        customerIds.set(customer.key, row.id);
      }

      for (const gateway of org.gateways) {
        const values = gatewayColumns(gateway, {
          orgId: orgRow.id,
          customerId: gateway.customer === null ? null : (customerIds.get(gateway.customer) ?? null),
          // A gateway in this box's config is its own, even if a site forwarded it before.
          edgeSite: null,
        });
        liveGatewayIds.push(upsertGateway(tx, gateway, values, now));
      }
    }
    // Gateways that sites forward (docs/fleet.md) are not the config's to retire.
    retireMissing(tx, gateways, gateways.id, liveGatewayIds, now, isNull(gateways.edgeSite));
    removeMissingOrganizations(tx, liveOrgIds, now);
  });
}

/**
 * An organisation that left the config loses its access for good: its keys are revoked, its webhook endpoints paused, and its row
 * gives up its key and uuid, so adding the same key again makes a new
 * organisation that inherits neither. Its history stays.
 */
function removeMissingOrganizations(tx: Tx, liveOrgIds: number[], now: number): void {
  const removed = tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(
      and(isNull(organizations.removedAt), notInArray(organizations.id, liveOrgIds.length > 0 ? liveOrgIds : [-1])),
    )
    .all();
  for (const { id } of removed) {
    tx.update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.orgId, id), isNull(apiKeys.revokedAt)))
      .run();
    tx.update(webhookEndpoints)
      .set({ status: "paused", pausedAt: now, pauseReason: "organisation removed from the config" })
      .where(and(eq(webhookEndpoints.orgId, id), eq(webhookEndpoints.status, "enabled")))
      .run();
    tx.update(organizations)
      .set({
        removedAt: now,
        key: sql`${organizations.key} || '#removed-' || ${id}`,
        uuid: sql`${organizations.uuid} || '#removed-' || ${id}`,
      })
      .where(eq(organizations.id, id))
      .run();
  }
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** A gateway's row as the config or a site describes it, live again (not retired). */
function gatewayColumns(
  gateway: InventoryGateway,
  owner: { orgId: number; customerId: number | null; edgeSite: string | null },
) {
  return {
    ...owner,
    serial: gateway.serial,
    name: gateway.name,
    heartbeatMs: gateway.heartbeatMs,
    firmwareVer: gateway.firmwareVer,
    ipEth: gateway.ipEth,
    ipWifi: gateway.ipWifi,
    ip4g: gateway.ip4g,
    signal4g: gateway.signal4g,
    retiredAt: null,
  };
}

function syncModbusDevices(tx: Tx, gatewayId: number, devices: InventoryModbusDevice[], now: number): void {
  const liveDeviceIds: number[] = [];
  const liveRegisterIds: number[] = [];
  devices.forEach((device, devicePosition) => {
    let templateId: number | null = null;
    if (device.template !== null) {
      const { id, brand, model } = device.template;
      templateId = tx
        .insert(deviceTemplates)
        .values({ uuid: id, brand, model })
        .onConflictDoUpdate({ target: deviceTemplates.uuid, set: { brand, model } })
        .returning({ id: deviceTemplates.id })
        .get().id;
    }
    const values = {
      gatewayId,
      name: device.name,
      slaveId: device.slaveId,
      protocol: device.protocol,
      ipAddress: device.ipAddress,
      port: device.port,
      pollIntervalMs: device.pollIntervalMs,
      storageIntervalMs: device.storageIntervalMs ?? null,
      templateId,
      position: devicePosition,
      retiredAt: null,
    };
    const deviceRow = tx
      .insert(modbusDevices)
      .values({ uuid: device.id, ...values })
      .onConflictDoUpdate({ target: modbusDevices.uuid, set: values })
      .returning({ id: modbusDevices.id })
      .get();
    liveDeviceIds.push(deviceRow.id);

    device.registers.forEach((register, registerPosition) => {
      const registerValues = {
        gatewayId,
        modbusDeviceId: deviceRow.id,
        name: register.name,
        address: register.address,
        functionCode: register.functionCode,
        dataType: register.dataType,
        unit: register.unit,
        scaleFactor: register.scaleFactor,
        isWritable: register.isWritable,
        writeMin: register.writeMin,
        writeMax: register.writeMax,
        description: register.description,
        pollIntervalMs: register.pollIntervalMs ?? null,
        position: registerPosition,
        retiredAt: null,
      };
      // A scale factor read from the device stays as last read (docs/polling.md), unless the
      // inventory brings one: a site's, as its store holds it (docs/fleet.md, "Forwarding").
      const { scaleFactor: _, ...keepingScaleFactor } = registerValues;
      const keeps = register.scaleFactorFromDevice === true && register.scaleFactor === null;
      const registerRow = tx
        .insert(registers)
        .values({ uuid: register.id, ...registerValues })
        .onConflictDoUpdate({
          target: registers.uuid,
          set: keeps ? keepingScaleFactor : registerValues,
        })
        .returning({ id: registers.id })
        .get();
      liveRegisterIds.push(registerRow.id);
    });
  });
  retireMissing(tx, modbusDevices, modbusDevices.id, liveDeviceIds, now, eq(modbusDevices.gatewayId, gatewayId));
  retireMissing(tx, registers, registers.id, liveRegisterIds, now, eq(registers.gatewayId, gatewayId));
}

function retireMissing(
  tx: Tx,
  table: typeof gateways | typeof modbusDevices | typeof registers,
  idColumn: typeof gateways.id | typeof modbusDevices.id | typeof registers.id,
  liveIds: number[],
  now: number,
  scope?: SQL,
): void {
  const conditions = [isNull(table.retiredAt), notInArray(idColumn, liveIds.length > 0 ? liveIds : [-1])];
  if (scope !== undefined) conditions.push(scope);
  tx.update(table)
    .set({ retiredAt: now })
    .where(and(...conditions))
    .run();
}
