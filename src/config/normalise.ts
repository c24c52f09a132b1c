/**
 * A checked, defaulted file -> FieldhubConfig: camelCase, every id decided,
 * gateways grouped under their organisation, templates expanded into registers, and the
 * same devices and registers once more in the shape the pollers read (polling), and the
 * alert rules and automations (alerting-normalise.ts). Only called when the file has no
 * problems, so it can trust the references and the bus/device combinations.
 */
import type {
  InventoryGateway,
  InventoryModbusDevice,
  InventoryOrganization,
  InventoryRegister,
} from "../lib/inventory.ts";
import type { ByteOrder, DataType, FunctionCode, RegisterDecoding } from "../lib/register-map.ts";
import { normaliseAlerting } from "./alerting-normalise.ts";
import { lookupTemplate, type ResolvedRegister, resolveRegisters } from "./device-registers.ts";
import { defaults, type RawBus, type RawConfig, type RawDevice, type RawGateway, type RawRegister } from "./schema.ts";
import { derivedId, deviceKey } from "./stable-ids.ts";
import type { BusConfig, FieldhubConfig, PollingDevice, PollingGateway } from "./types.ts";

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
  const polling: PollingGateway[] = [];
  const onlyOrganization = raw.organizations.length === 1 ? raw.organizations[0]?.key : undefined;
  for (const gateway of raw.gateways) {
    const orgKey = gateway.organization ?? onlyOrganization;
    const organization = orgKey === undefined ? undefined : organizations.get(orgKey);
    // rules.ts has refused a file where this could happen.
    if (organization === undefined) throw new Error(`gateway ${gateway.serial}: no organisation after validation`);
    const bus = normaliseBus(gateway.bus);
    const { inventory, devices } = normaliseGateway(gateway);
    organization.gateways.push(inventory);
    buses.set(gateway.serial, bus);
    polling.push({
      id: inventory.id,
      serial: gateway.serial,
      bus,
      heartbeatMs: inventory.heartbeatMs,
      ...(gateway.bus.reconnect_max_s === undefined ? {} : { reconnectMaxMs: gateway.bus.reconnect_max_s * 1000 }),
      devices,
    });
  }

  const inventory = { organizations: [...organizations.values()] };
  return {
    server: {
      host: raw.server.host,
      port: raw.server.port,
      publicUrl: raw.server.public_url ?? null,
    },
    retention: { readingsDays: raw.retention.readings_days },
    api: { rateLimitPerMinute: raw.api.rate_limit_per_minute },
    webhooks: {
      timeoutMs: raw.webhooks.timeout_s * 1000,
      retryDelaysMs: raw.webhooks.retry_delays_s.map((seconds) => seconds * 1000),
      pauseAfterFailedMessages: raw.webhooks.pause_after_failed_messages,
      logRetentionDays: raw.webhooks.log_retention_days,
    },
    inventory,
    buses,
    polling,
    ...normaliseAlerting(raw, inventory),
  };
}

function normaliseGateway(gateway: RawGateway): { inventory: InventoryGateway; devices: PollingDevice[] } {
  const devices = gateway.devices.map((device) => normaliseDevice(device, gateway));
  return {
    inventory: {
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
      modbusDevices: devices.map((device) => device.inventory),
    },
    devices: devices.map((device) => device.polling),
  };
}

function normaliseDevice(
  device: RawDevice,
  gateway: RawGateway,
): { inventory: InventoryModbusDevice; polling: PollingDevice } {
  const serial = gateway.serial;
  const isTcp = gateway.bus.type === "tcp";
  const host = isTcp ? (device.host ?? null) : null;
  const port = isTcp ? (device.port ?? defaults.devicePort) : null;
  const key = deviceKey(device.name ?? null, host, port, device.slave_id);
  const id = idOr(device.id, () => derivedId.device(serial, key));

  const lookup = lookupTemplate(device.template);
  // rules.ts has refused a template the library does not have.
  if (device.template !== undefined && lookup.kind !== "found")
    throw new Error(`device ${key}: unknown template after validation`);
  const template = lookup.kind === "found" ? lookup.template : undefined;
  const byteOrder: ByteOrder = template?.byteOrder ?? defaults.byteOrder;
  const resolved = resolveRegisters(device.registers, template, new Set(device.exclude ?? []), []);
  const registers = resolved.registers.map((register) =>
    normaliseRegister(register, () => derivedId.register(serial, key, register.name), byteOrder),
  );
  const pollIntervalMs = device.poll_interval_ms ?? template?.pollIntervalMs ?? defaults.pollIntervalMs;

  return {
    inventory: {
      id,
      name: device.name ?? null,
      slaveId: device.slave_id,
      protocol: isTcp ? "tcp" : "rtu",
      ipAddress: host,
      port,
      pollIntervalMs,
      template: device.template
        ? { id: derivedId.template(device.template.brand, device.template.model), ...device.template }
        : null,
      registers: registers.map((register) => register.inventory),
    },
    polling: {
      id,
      name: device.name ?? null,
      slaveId: device.slave_id,
      host,
      port,
      pollIntervalMs,
      timeoutMs: device.timeout_ms,
      retries: device.retries,
      maxRegistersPerRequest:
        device.max_registers_per_request ?? template?.maxRegistersPerRequest ?? defaults.maxRegistersPerRequest,
      maxGap: device.max_gap,
      pauseMs: device.pause_ms,
      storageIntervalMs: (device.storage_interval_s ?? gateway.storage_interval_s) * 1000,
      registers: registers.map((register) => register.decoding),
    },
  };
}

/**
 * A resolved register of a checked file: every field it needs is there (rules.ts requires
 * address and data_type of a register the template does not supply).
 */
function normaliseRegister(
  resolved: ResolvedRegister,
  deriveId: () => string,
  defaultByteOrder: ByteOrder,
): { inventory: InventoryRegister; decoding: RegisterDecoding } {
  const register = resolved.record as RawRegister;
  if (register.address === undefined || register.data_type === undefined) {
    throw new Error(`register ${resolved.name}: no address or data_type after validation`);
  }
  const id = idOr(register.id, deriveId);
  const functionCode: FunctionCode = register.function_code ?? defaults.functionCode;
  const dataType: DataType = register.data_type;
  return {
    inventory: {
      id,
      name: resolved.name,
      address: register.address,
      functionCode,
      dataType,
      unit: register.unit ?? null,
      scaleFactor: register.scale_factor ?? null,
      isWritable: register.writable ?? false,
      description: register.description ?? null,
    },
    decoding: {
      id,
      functionCode,
      address: register.address,
      dataType,
      byteOrder: register.byte_order ?? defaultByteOrder,
      bit: register.bit ?? null,
      length: register.length ?? null,
    },
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
