/**
 * The inventory sync on PostgreSQL, as ../sqlite/inventory.ts: organisations, customers,
 * gateways, Modbus devices and registers brought in line with the config in one
 * transaction; rows that left it are retired (gateways, devices, registers) or
 * removed for good (organisations: keys revoked, endpoints paused, key and uuid freed).
 *
 * Several central processes may sync at once (each starts with one): the whole
 * sync holds a transaction-scoped advisory lock, so syncs run one after another and
 * none retires what another has just added.
 */
import type { Inventory, InventoryGateway, InventoryModbusDevice } from "../../lib/inventory.ts";
import type { GatewayStatus } from "../contract/gateways.ts";
import { GatewayOwnedElsewhereError, type InventoryStore } from "../contract/inventory.ts";
import type { Sql } from "./connection.ts";
import { rowsOf } from "./rows.ts";

/** Initial status a gateway gets when it first appears: pending until it reports. */
const firstStatus: GatewayStatus = "pending";

/** Any id: keys the advisory lock a sync holds ("fhin"). */
const syncLockKey = 0x66_68_69_6e;

export function postgresInventoryStore(sql: Sql): InventoryStore {
  function sync(inventory: Inventory, now: number): Promise<void> {
    return sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${syncLockKey})`;
      const liveGatewayIds: number[] = [];
      const liveOrgIds: number[] = [];
      for (const org of inventory.organizations) {
        const [orgRow] = await rowsOf<{ id: number }>(tx`
          INSERT INTO organizations (uuid, key, name, created_at, writes_enabled)
          VALUES (${org.id}, ${org.key}, ${org.name}, ${now}, ${org.writesEnabled})
          ON CONFLICT (uuid) DO UPDATE SET key = excluded.key, name = excluded.name, writes_enabled = excluded.writes_enabled
          RETURNING id`);
        const orgId = (orgRow as { id: number }).id;
        liveOrgIds.push(orgId);

        const customerIds = new Map<string, number>();
        for (const customer of org.customers) {
          const [row] = await rowsOf<{ id: number }>(tx`
            INSERT INTO customers (uuid, org_id, key, name, city)
            VALUES (${customer.id}, ${orgId}, ${customer.key}, ${customer.name}, ${customer.city})
            ON CONFLICT (uuid) DO UPDATE SET org_id = excluded.org_id, key = excluded.key, name = excluded.name, city = excluded.city
            RETURNING id`);
          customerIds.set(customer.key, (row as { id: number }).id);
        }

        for (const gateway of org.gateways) {
          const customerId = gateway.customer === null ? null : (customerIds.get(gateway.customer) ?? null);
          const [row] = await rowsOf<{ id: number }>(tx`
            INSERT INTO gateways (uuid, status, created_at, org_id, customer_id, serial, name, heartbeat_ms,
                                  firmware_ver, ip_eth, ip_wifi, ip_4g, signal_4g, retired_at)
            VALUES (${gateway.id}, ${firstStatus}, ${now}, ${orgId}, ${customerId}, ${gateway.serial}, ${gateway.name},
                    ${gateway.heartbeatMs}, ${gateway.firmwareVer}, ${gateway.ipEth}, ${gateway.ipWifi}, ${gateway.ip4g},
                    ${gateway.signal4g}, NULL)
            ON CONFLICT (uuid) DO UPDATE SET
              org_id = excluded.org_id, customer_id = excluded.customer_id, serial = excluded.serial,
              name = excluded.name, heartbeat_ms = excluded.heartbeat_ms, firmware_ver = excluded.firmware_ver,
              ip_eth = excluded.ip_eth, ip_wifi = excluded.ip_wifi, ip_4g = excluded.ip_4g,
              signal_4g = excluded.signal_4g, retired_at = NULL, edge_site = NULL
            RETURNING id`);
          const gatewayId = (row as { id: number }).id;
          liveGatewayIds.push(gatewayId);
          await syncModbusDevices(tx, gatewayId, gateway.modbusDevices, now);
        }
      }
      // Gateways that sites forward (docs/fleet.md) are not the config's to retire.
      await tx`UPDATE gateways SET retired_at = ${now}
                WHERE retired_at IS NULL AND edge_site IS NULL AND NOT (id = ANY(${liveGatewayIds}::int[]))`;
      await removeMissingOrganizations(tx, liveOrgIds, now);
    });
  }

  /** As ../sqlite/inventory.ts: a site's gateways in its organisation; one owned elsewhere refuses the whole list. */
  function syncSite(
    site: { orgId: number; name: string },
    list: readonly InventoryGateway[],
    now: number,
  ): Promise<void> {
    return sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${syncLockKey})`;
      const liveGatewayIds: number[] = [];
      for (const gateway of list) {
        const owners = await rowsOf<{ org_id: number; edge_site: string | null }>(tx`
          SELECT org_id, edge_site FROM gateways WHERE uuid = ${gateway.id} OR serial = ${gateway.serial}`);
        if (owners.some((owner) => owner.org_id !== site.orgId || owner.edge_site !== site.name)) {
          throw new GatewayOwnedElsewhereError(gateway.serial);
        }
        const [row] = await rowsOf<{ id: number }>(tx`
          INSERT INTO gateways (uuid, status, created_at, org_id, customer_id, serial, name, heartbeat_ms,
                                firmware_ver, ip_eth, ip_wifi, ip_4g, signal_4g, retired_at, edge_site)
          VALUES (${gateway.id}, ${firstStatus}, ${now}, ${site.orgId}, NULL, ${gateway.serial}, ${gateway.name},
                  ${gateway.heartbeatMs}, ${gateway.firmwareVer}, ${gateway.ipEth}, ${gateway.ipWifi}, ${gateway.ip4g},
                  ${gateway.signal4g}, NULL, ${site.name})
          ON CONFLICT (uuid) DO UPDATE SET
            org_id = excluded.org_id, customer_id = NULL, serial = excluded.serial, name = excluded.name,
            heartbeat_ms = excluded.heartbeat_ms, firmware_ver = excluded.firmware_ver, ip_eth = excluded.ip_eth,
            ip_wifi = excluded.ip_wifi, ip_4g = excluded.ip_4g, signal_4g = excluded.signal_4g, retired_at = NULL,
            edge_site = excluded.edge_site
          RETURNING id`);
        const gatewayId = (row as { id: number }).id;
        liveGatewayIds.push(gatewayId);
        await syncModbusDevices(tx, gatewayId, gateway.modbusDevices, now);
      }
      await tx`UPDATE gateways SET retired_at = ${now}
                WHERE retired_at IS NULL AND org_id = ${site.orgId} AND edge_site = ${site.name}
                  AND NOT (id = ANY(${liveGatewayIds}::int[]))`;
    });
  }

  return { sync, syncSite };
}

/**
 * An organisation that left the config loses its access for good, as on SQLite:
 * its keys are revoked, its webhook endpoints paused, and its row gives up its key
 * and uuid, so the same key added again is a new organisation that inherits neither.
 */
async function removeMissingOrganizations(tx: Sql, liveOrgIds: number[], now: number): Promise<void> {
  const removed = await rowsOf<{ id: number }>(tx`
    SELECT id FROM organizations WHERE removed_at IS NULL AND NOT (id = ANY(${liveOrgIds}::int[])) ORDER BY id`);
  for (const { id } of removed) {
    await tx`UPDATE api_keys SET revoked_at = ${now} WHERE org_id = ${id} AND revoked_at IS NULL`;
    await tx`UPDATE webhook_endpoints
                SET status = 'paused', paused_at = ${now}, pause_reason = 'organisation removed from the config'
              WHERE org_id = ${id} AND status = 'enabled'`;
    await tx`UPDATE organizations
                SET removed_at = ${now}, key = key || '#removed-' || id::text, uuid = uuid || '#removed-' || id::text
              WHERE id = ${id}`;
  }
}

async function syncModbusDevices(
  tx: Sql,
  gatewayId: number,
  devices: InventoryModbusDevice[],
  now: number,
): Promise<void> {
  const liveDeviceIds: number[] = [];
  const liveRegisterIds: number[] = [];
  for (const [position, device] of devices.entries()) {
    let templateId: number | null = null;
    if (device.template !== null) {
      const { id, brand, model } = device.template;
      const [row] = await rowsOf<{ id: number }>(tx`
        INSERT INTO device_templates (uuid, brand, model) VALUES (${id}, ${brand}, ${model})
        ON CONFLICT (uuid) DO UPDATE SET brand = excluded.brand, model = excluded.model
        RETURNING id`);
      templateId = (row as { id: number }).id;
    }
    const [deviceRow] = await rowsOf<{ id: number }>(tx`
      INSERT INTO modbus_devices (uuid, gateway_id, name, slave_id, protocol, ip_address, port, poll_interval_ms,
                                  storage_interval_ms, template_id, position, retired_at)
      VALUES (${device.id}, ${gatewayId}, ${device.name}, ${device.slaveId}, ${device.protocol}, ${device.ipAddress},
              ${device.port}, ${device.pollIntervalMs}, ${device.storageIntervalMs ?? null}, ${templateId}, ${position}, NULL)
      ON CONFLICT (uuid) DO UPDATE SET
        gateway_id = excluded.gateway_id, name = excluded.name, slave_id = excluded.slave_id,
        protocol = excluded.protocol, ip_address = excluded.ip_address, port = excluded.port,
        poll_interval_ms = excluded.poll_interval_ms, storage_interval_ms = excluded.storage_interval_ms,
        template_id = excluded.template_id, position = excluded.position, retired_at = NULL
      RETURNING id`);
    const deviceId = (deviceRow as { id: number }).id;
    liveDeviceIds.push(deviceId);
    if (device.registers.length === 0) continue;

    // A device's registers in one statement (a device may have hundreds); the
    // latest-value columns are left as they are.
    const r = device.registers;
    const rows = await rowsOf<{ id: number }>(tx`
      INSERT INTO registers (uuid, gateway_id, modbus_device_id, name, address, function_code, data_type, unit,
                             scale_factor, is_writable, write_min, write_max, description, poll_interval_ms,
                             position, retired_at)
      SELECT uuid, ${gatewayId}, ${deviceId}, name, address, function_code, data_type, unit, scale_factor,
             is_writable, write_min, write_max, description, poll_interval_ms, position, NULL
        FROM unnest(${r.map((x) => x.id)}::text[], ${r.map((x) => x.name)}::text[], ${r.map((x) => x.address)}::int[],
                    ${r.map((x) => x.functionCode)}::int[], ${r.map((x) => x.dataType)}::text[],
                    ${r.map((x) => x.unit)}::text[], ${r.map((x) => x.scaleFactor)}::float8[],
                    ${r.map((x) => x.isWritable)}::bool[], ${r.map((x) => x.writeMin)}::float8[],
                    ${r.map((x) => x.writeMax)}::float8[], ${r.map((x) => x.description)}::text[],
                    ${r.map((x) => x.pollIntervalMs ?? null)}::int[], ${r.map((_, index) => index)}::int[])
          AS given(uuid, name, address, function_code, data_type, unit, scale_factor, is_writable, write_min,
                   write_max, description, poll_interval_ms, position)
      ON CONFLICT (uuid) DO UPDATE SET
        gateway_id = excluded.gateway_id, modbus_device_id = excluded.modbus_device_id, name = excluded.name,
        address = excluded.address, function_code = excluded.function_code, data_type = excluded.data_type,
        unit = excluded.unit,
        -- A scale factor read from the device stays as last read (docs/polling.md), unless the
        -- inventory brings one: a site's, as its store holds it (docs/fleet.md, "Forwarding").
        scale_factor = CASE WHEN excluded.uuid = ANY(${r.filter((x) => x.scaleFactorFromDevice === true && x.scaleFactor === null).map((x) => x.id)}::text[])
                            THEN registers.scale_factor ELSE excluded.scale_factor END,
        is_writable = excluded.is_writable,
        write_min = excluded.write_min, write_max = excluded.write_max, description = excluded.description,
        poll_interval_ms = excluded.poll_interval_ms, position = excluded.position, retired_at = NULL
      RETURNING id`);
    for (const row of rows) liveRegisterIds.push(row.id);
  }
  await tx`UPDATE modbus_devices SET retired_at = ${now}
            WHERE retired_at IS NULL AND gateway_id = ${gatewayId} AND NOT (id = ANY(${liveDeviceIds}::int[]))`;
  await tx`UPDATE registers SET retired_at = ${now}
            WHERE retired_at IS NULL AND gateway_id = ${gatewayId} AND NOT (id = ANY(${liveRegisterIds}::int[]))`;
}
