/**
 * `PUT /edge/v1/inventory` (docs/fleet.md, "Forwarding", step 1): the gateways,
 * Modbus devices and registers a site polls, with the stable ids it decided.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { InventoryGateway } from "../inventory.ts";
import { maxForwardedGateways } from "./limits.ts";
import { count, nullable } from "./wire.ts";

const uuid = Type.String({ format: "uuid" });

const SiteRegister = Type.Object({
  id: uuid,
  name: Type.String({ minLength: 1 }),
  address: Type.Integer({ minimum: 0, maximum: 65_535 }),
  functionCode: nullable(Type.Integer({ minimum: 1, maximum: 4 })),
  dataType: Type.String({ minLength: 1 }),
  unit: nullable(Type.String()),
  scaleFactor: nullable(Type.Number()),
  // The site reads the scale factor from the device (config scale_factor_register, docs/polling.md);
  // scaleFactor is then the one its store holds (null until first read: the central keeps its own).
  scaleFactorFromDevice: Type.Optional(Type.Boolean()),
  isWritable: Type.Boolean(),
  writeMin: nullable(Type.Number()),
  writeMax: nullable(Type.Number()),
  description: nullable(Type.String()),
  // Its own poll group's interval (config poll_interval_ms): a central judges staleness by it.
  pollIntervalMs: Type.Optional(Type.Integer({ minimum: 1 })),
});

const SiteModbusDevice = Type.Object({
  id: uuid,
  name: nullable(Type.String()),
  slaveId: Type.Integer({ minimum: 0, maximum: 255 }),
  protocol: Type.Union([Type.Literal("rtu"), Type.Literal("tcp")]),
  ipAddress: nullable(Type.String()),
  port: nullable(Type.Integer({ minimum: 1, maximum: 65_535 })),
  pollIntervalMs: nullable(Type.Integer({ minimum: 1 })),
  storageIntervalMs: Type.Optional(Type.Integer({ minimum: 1000 })),
  template: nullable(Type.Object({ id: uuid, brand: Type.String(), model: Type.String() })),
  registers: Type.Array(SiteRegister),
});

const SiteGateway = Type.Object({
  id: uuid,
  serial: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.String({ minLength: 1 }),
  customer: nullable(Type.String()),
  heartbeatMs: Type.Integer({ minimum: 1 }),
  firmwareVer: nullable(Type.String()),
  ipEth: nullable(Type.String()),
  ipWifi: nullable(Type.String()),
  ip4g: nullable(Type.String()),
  signal4g: nullable(Type.Number()),
  modbusDevices: Type.Array(SiteModbusDevice),
});

export const SiteInventory = Type.Object({ gateways: Type.Array(SiteGateway, { maxItems: maxForwardedGateways }) });

export const InventoryReceipt = Type.Object({ gateways: count, registers: count });

// The wire shape is the inventory's own (lib/inventory.ts): these lines fail to compile when they drift apart.
export const inventoryFromWire: (gateway: Static<typeof SiteGateway>) => InventoryGateway = (gateway) => gateway;
export const inventoryToWire: (gateway: InventoryGateway) => Static<typeof SiteGateway> = (gateway) => gateway;
