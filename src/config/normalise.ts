/**
 * A checked, defaulted file -> FieldhubConfig: camelCase, every id decided,
 * gateways grouped under their organisation. Only called when the file has no
 * problems, so it can trust the references and the bus/device combinations.
 */
import type {
  InventoryGateway,
  InventoryModbusDevice,
  InventoryOrganization,
  InventoryRegister,
} from "../lib/inventory.ts";
import { defaults, type RawBus, type RawConfig, type RawDevice, type RawGateway } from "./schema.ts";
import { derivedId, deviceKey } from "./stable-ids.ts";
import type { BusConfig, FieldhubConfig } from "./types.ts";

export function normaliseConfig(raw: RawConfig): FieldhubConfig {
  const organizations = new Map<string, InventoryOrganization>();
  for (const org of raw.organizations) {
    organizations.set(org.key, {
      id: idOr(org.id, () => derivedId.organization(org.key)),
      key: org.key,
      name: org.name,
      customers: org.customers.map((customer) => ({
        id: idOr(customer.id, () => derivedId.customer(org.key, customer.key)),
        key: customer.key,
        name: customer.name,
        city: customer.city ?? null,
      })),
      gateways: [],
    });
  }

  const buses = new Map<string, BusConfig>();
  const onlyOrganization = raw.organizations.length === 1 ? raw.organizations[0]?.key : undefined;
  for (const gateway of raw.gateways) {
    const orgKey = gateway.organization ?? onlyOrganization;
    const organization = orgKey === undefined ? undefined : organizations.get(orgKey);
    // rules.ts has refused a file where this could happen.
    if (organization === undefined) throw new Error(`gateway ${gateway.serial}: no organisation after validation`);
    organization.gateways.push(normaliseGateway(gateway));
    buses.set(gateway.serial, normaliseBus(gateway.bus));
  }

  return {
    server: {
      host: raw.server.host,
      port: raw.server.port,
      publicUrl: raw.server.public_url ?? null,
    },
    retention: { readingsDays: raw.retention.readings_days },
    api: { rateLimitPerMinute: raw.api.rate_limit_per_minute },
    inventory: { organizations: [...organizations.values()] },
    buses,
  };
}

function normaliseGateway(gateway: RawGateway): InventoryGateway {
  return {
    id: idOr(gateway.id, () => derivedId.gateway(gateway.serial)),
    serial: gateway.serial,
    name: gateway.name,
    customer: gateway.customer ?? null,
    heartbeatMs: gateway.heartbeat_s * 1000,
    firmwareVer: gateway.firmware_ver ?? null,
    ipEth: gateway.ip_eth ?? null,
    ipWifi: gateway.ip_wifi ?? null,
    ip4g: gateway.ip_4g ?? null,
    signal4g: gateway.signal_4g ?? null,
    modbusDevices: gateway.devices.map((device) => normaliseDevice(device, gateway.serial, gateway.bus.type === "tcp")),
  };
}

function normaliseDevice(device: RawDevice, serial: string, isTcp: boolean): InventoryModbusDevice {
  const host = isTcp ? (device.host ?? null) : null;
  const port = isTcp ? (device.port ?? defaults.devicePort) : null;
  const key = deviceKey(device.name ?? null, host, port, device.slave_id);
  const template = device.template;
  return {
    id: idOr(device.id, () => derivedId.device(serial, key)),
    name: device.name ?? null,
    slaveId: device.slave_id,
    protocol: isTcp ? "tcp" : "rtu",
    ipAddress: host,
    port,
    pollIntervalMs: device.poll_interval_ms,
    template: template ? { id: derivedId.template(template.brand, template.model), ...template } : null,
    registers: device.registers.map(
      (register): InventoryRegister => ({
        id: idOr(register.id, () => derivedId.register(serial, key, register.name)),
        name: register.name,
        address: register.address,
        functionCode: register.function_code,
        dataType: register.data_type,
        unit: register.unit ?? null,
        scaleFactor: register.scale_factor ?? null,
        isWritable: register.writable,
        description: register.description ?? null,
      }),
    ),
  };
}

function normaliseBus(bus: RawBus): BusConfig {
  switch (bus.type) {
    case "tcp":
      return { type: "tcp" };
    case "rtu":
      return {
        type: "rtu",
        path: bus.path,
        baud: bus.baud,
        dataBits: bus.data_bits,
        parity: bus.parity,
        stopBits: bus.stop_bits,
      };
    case "rtu_over_tcp":
      return { type: "rtu_over_tcp", host: bus.host, port: bus.port };
  }
}

/** A written id wins; UUIDs are compared and stored in lower case. */
function idOr(written: string | undefined, derive: () => string): string {
  return written === undefined ? derive() : written.toLowerCase();
}
