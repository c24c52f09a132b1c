/**
 * A checked, defaulted file -> FieldhubConfig: camelCase, every id decided,
 * gateways grouped under their organisation, templates expanded into registers, and the
 * same devices and registers once more in the shape the pollers read (polling), and the
 * alert rules and automations (alerting-normalise.ts). Only called when the file has no
 * problems, so it can trust the references and the bus/device combinations. What the
 * checks derived (each gateway's organisation, each device's natural key, template and
 * resolved registers) it reads from the file index, which lists the file's gateways and
 * devices in the same order.
 */

import { parseNetwork } from "../lib/address-networks.ts";
import type {
  InventoryGateway,
  InventoryModbusDevice,
  InventoryOrganization,
  InventoryRegister,
} from "../lib/inventory.ts";
import type { MqttSettings } from "../lib/mqtt-settings.ts";
import type { PolledRegister } from "../modbus/polling-config.ts";
import {
  type ByteOrder,
  type DataType,
  type FunctionCode,
  type RegisterDecoding,
  type RegisterWrite,
  writeFunctionsFor,
} from "../modbus/register-model.ts";
import type { ModbusServerConfig } from "../modbus-server/server-config.ts";
import { normaliseAlerting } from "./alerting-normalise.ts";
import type { ResolvedRegister } from "./device-registers.ts";
import type { DeviceEntry, FileIndex, GatewayEntry } from "./file-index.ts";
import { readPasswordFile } from "./mqtt-checks.ts";
import {
  type DefaultedBus,
  type DefaultedDevice,
  type DefaultedFile,
  type DefaultedGateway,
  type DefaultedModbusServer,
  type DefaultedRegister,
  defaults,
} from "./schema.ts";
import { derivedId, idOr } from "./stable-ids.ts";
import type { BusConfig, FieldhubConfig, PollingDevice, PollingGateway } from "./types.ts";

export function normaliseConfig(file: DefaultedFile, index: FileIndex): FieldhubConfig {
  const organizations = new Map<string, InventoryOrganization>();
  for (const org of file.organizations) {
    organizations.set(org.key, {
      id: idOr(org.id, () => derivedId.organization(org.key)),
      key: org.key,
      name: org.name,
      writesEnabled: org.writes_enabled,
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
  const modbusServers: ModbusServerConfig[] = [];
  file.gateways.forEach((gateway, i) => {
    const entry = index.gateways[i];
    const organization = entry?.orgKey === undefined ? undefined : organizations.get(entry.orgKey);
    // rules.ts has refused a file where this could happen.
    if (entry === undefined || organization === undefined) {
      throw new Error(`gateway ${gateway.serial}: no organisation after validation`);
    }
    const bus = normaliseBus(gateway.bus);
    const { inventory, devices } = normaliseGateway(gateway, entry);
    organization.gateways.push(inventory);
    buses.set(gateway.serial, bus);
    polling.push({
      id: inventory.id,
      serial: gateway.serial,
      name: gateway.name,
      bus,
      heartbeatMs: inventory.heartbeatMs,
      ...(gateway.bus.reconnect_max_s === undefined ? {} : { reconnectMaxMs: gateway.bus.reconnect_max_s * 1000 }),
      devices,
    });
    if (gateway.modbus_server !== undefined)
      modbusServers.push(normaliseModbusServer(gateway, entry, inventory.id, devices, file.server.host));
  });

  const inventory = { organizations: [...organizations.values()] };
  return {
    server: {
      host: file.server.host,
      port: file.server.port,
      publicUrl: file.server.public_url ?? null,
    },
    http: { corsOrigins: file.api.cors_origins, logRequests: file.api.log_requests },
    retention: { readingsDays: file.retention.readings_days },
    storage: { commitIntervalMs: file.storage.commit_interval_s * 1000 },
    uplink:
      file.uplink === undefined
        ? null
        : { url: file.uplink.url, token: file.uplink.token, checkIntervalMs: file.uplink.check_interval_s * 1000 },
    mqtt: normaliseMqtt(file, index),
    api: { rateLimitPerMinute: file.api.rate_limit_per_minute },
    webhooks: {
      timeoutMs: file.webhooks.timeout_s * 1000,
      retryDelaysMs: file.webhooks.retry_delays_s.map((seconds) => seconds * 1000),
      pauseAfterFailedMessages: file.webhooks.pause_after_failed_messages,
      logRetentionDays: file.webhooks.log_retention_days,
    },
    inventory,
    buses,
    polling,
    modbusServers,
    ...normaliseAlerting(file, index, inventory),
  };
}

function normaliseGateway(
  gateway: DefaultedGateway,
  entry: GatewayEntry,
): { inventory: InventoryGateway; devices: PollingDevice[] } {
  const devices = gateway.devices.map((device, j) => {
    const deviceEntry = entry.devices[j];
    if (deviceEntry === undefined) throw new Error(`gateway ${gateway.serial}: device ${j} is not indexed`);
    return normaliseDevice(device, deviceEntry, gateway);
  });
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
  device: DefaultedDevice,
  entry: DeviceEntry,
  gateway: DefaultedGateway,
): { inventory: InventoryModbusDevice; polling: PollingDevice } {
  const serial = gateway.serial;
  const isTcp = gateway.bus.type === "tcp";
  const host = isTcp ? (device.host ?? null) : null;
  const port = isTcp ? (device.port ?? defaults.devicePort) : null;
  const key = entry.naturalKey;
  // rules.ts has refused a file where this or an unknown template could happen.
  if (key === undefined) throw new Error(`device ${entry.path.join(".")}: no natural key after validation`);
  if (device.template !== undefined && entry.template.kind !== "found")
    throw new Error(`device ${key}: unknown template after validation`);
  const id = idOr(device.id, () => derivedId.device(serial, key));
  const template = entry.template.kind === "found" ? entry.template.template : undefined;
  const byteOrder: ByteOrder = template?.byteOrder ?? defaults.byteOrder;
  const registers = entry.resolved.registers.map((register) =>
    normaliseRegister(register, () => derivedId.register(serial, key, register.name), byteOrder),
  );
  // rules.ts has checked that each scale_factor_register names a register of the device.
  const idsByName = new Map(registers.map((register) => [register.inventory.name, register.inventory.id]));
  const pollIntervalMs = device.poll_interval_ms ?? template?.pollIntervalMs ?? defaults.pollIntervalMs;
  const storageIntervalMs = (device.storage_interval_s ?? gateway.storage_interval_s) * 1000;

  return {
    inventory: {
      id,
      name: device.name ?? null,
      slaveId: device.slave_id,
      protocol: isTcp ? "tcp" : "rtu",
      ipAddress: host,
      port,
      pollIntervalMs,
      storageIntervalMs,
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
      storageIntervalMs,
      registers: registers.map((register) => ({
        ...register.decoding,
        name: register.inventory.name,
        ...(register.pollIntervalMs === undefined ? {} : { pollIntervalMs: register.pollIntervalMs }),
        ...register.meaning,
        ...(register.scaleFactorRegister === undefined
          ? {}
          : { scaleFactorRegisterId: idsByName.get(register.scaleFactorRegister) }),
      })),
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
): {
  inventory: InventoryRegister;
  decoding: RegisterDecoding;
  pollIntervalMs: number | undefined;
  scaleFactorRegister: string | undefined;
  meaning: Pick<PolledRegister, "notImplemented" | "sunspec">;
} {
  const register = resolved.record as DefaultedRegister;
  if (register.address === undefined || register.data_type === undefined) {
    throw new Error(`register ${resolved.name}: no address or data_type after validation`);
  }
  const id = idOr(register.id, deriveId);
  const functionCode: FunctionCode = register.function_code ?? defaults.functionCode;
  const dataType: DataType = register.data_type;
  const writable = register.writable ?? false;
  // rules.ts has required min and max of a writable register, and a write function that fits.
  const write: RegisterWrite | undefined =
    writable && register.min !== undefined && register.max !== undefined
      ? {
          functionCode: register.write_function ?? writeFunctionsFor(functionCode, dataType)[0] ?? 16,
          min: register.min,
          max: register.max,
          scaleFactor: register.scale_factor ?? null,
        }
      : undefined;
  const meaning: Pick<PolledRegister, "notImplemented" | "sunspec"> = {};
  if (register.not_implemented !== undefined) meaning.notImplemented = register.not_implemented;
  if (resolved.fromSunSpec !== undefined) meaning.sunspec = resolved.fromSunSpec.place;
  return {
    pollIntervalMs: register.poll_interval_ms,
    scaleFactorRegister: register.scale_factor_register,
    meaning,
    inventory: {
      id,
      name: resolved.name,
      address: register.address,
      functionCode,
      dataType,
      unit: register.unit ?? null,
      // A scale read from the device is written to the store as it is read (ingest); a sync keeps it.
      scaleFactor: register.scale_factor ?? null,
      ...(register.scale_factor_register === undefined ? {} : { scaleFactorFromDevice: true }),
      isWritable: writable,
      writeMin: write?.min ?? null,
      writeMax: write?.max ?? null,
      description: register.description ?? null,
      ...(register.poll_interval_ms === undefined ? {} : { pollIntervalMs: register.poll_interval_ms }),
    },
    decoding: {
      id,
      functionCode,
      address: register.address,
      dataType,
      byteOrder: register.byte_order ?? defaultByteOrder,
      bit: register.bit ?? null,
      length: register.length ?? null,
      ...(write === undefined ? {} : { write }),
    },
  };
}

/** rules.ts has refused a bad network and two devices of the gateway with one unit id. */
function normaliseModbusServer(
  gateway: DefaultedGateway,
  entry: GatewayEntry,
  gatewayId: string,
  devices: readonly PollingDevice[],
  serverHost: string,
): ModbusServerConfig {
  const server = gateway.modbus_server as DefaultedModbusServer;
  const allow =
    server.allow?.map((text) => {
      const network = parseNetwork(text);
      if ("problem" in network) throw new Error(`modbus_server.allow: ${network.problem} after validation`);
      return network;
    }) ?? null;
  return {
    gatewayId,
    gatewaySerial: gateway.serial,
    host: server.host ?? serverHost,
    port: server.port,
    writes: server.writes,
    allow,
    maxConnections: server.max_connections,
    units: devices.map((device, j) => ({
      unitId: entry.devices[j]?.serverUnitId ?? device.slaveId,
      deviceId: device.id,
      maxAgeMs: server.max_age_ms ?? device.pollIntervalMs,
    })),
  };
}

/** The `mqtt` section with its defaults decided and the password read (mqtt-checks.ts found the file readable). */
function normaliseMqtt(file: DefaultedFile, index: FileIndex): MqttSettings | null {
  const mqtt = file.mqtt;
  if (mqtt === undefined) return null;
  const deadbands = new Map<string, number>();
  file.gateways.forEach((gateway, i) => {
    for (const device of index.gateways[i]?.devices ?? []) {
      const key = device.naturalKey;
      if (key === undefined) continue;
      for (const register of device.resolved.registers) {
        const { deadband, id } = register.record as DefaultedRegister;
        if (deadband !== undefined && deadband > 0)
          deadbands.set(
            idOr(id, () => derivedId.register(gateway.serial, key, register.name)),
            deadband,
          );
      }
    }
  });
  return {
    url: mqtt.url,
    username: mqtt.username ?? null,
    password: mqtt.password_file === undefined ? (mqtt.password ?? null) : readPasswordFile(mqtt.password_file),
    caFile: mqtt.ca_file ?? null,
    clientId: mqtt.client_id ?? `fieldhub-${file.gateways[0]?.serial ?? "box"}`,
    topicPrefix: mqtt.topic_prefix,
    qos: mqtt.qos,
    maxIntervalMs: mqtt.max_interval_s * 1000,
    homeAssistant: mqtt.homeassistant === undefined ? null : { discoveryPrefix: mqtt.homeassistant.discovery_prefix },
    sparkplug:
      mqtt.sparkplug === undefined
        ? null
        : { groupId: mqtt.sparkplug.group_id, edgeNodeId: mqtt.sparkplug.edge_node_id },
    deadbands,
  };
}

function normaliseBus(bus: DefaultedBus): BusConfig {
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
