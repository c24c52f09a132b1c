/**
 * Field groups several event types share (docs/webhooks.md, "Event types"): the
 * gateway, the Modbus device and the register an event concerns, each with the
 * names a receiver routes on (docs/api.md section 9.2 allows added fields). On the wire
 * `device` means the gateway: `device_id`, `serial`, `device_name`.
 */
import { type TSchema, Type } from "@sinclair/typebox";

export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const literals = <T extends string>(values: readonly T[]) =>
  Type.Union(values.map((value) => Type.Literal(value)));
/** A public id (UUID, lower case). */
export const publicId = Type.String({ minLength: 1 });
/** ISO 8601, UTC, milliseconds. */
export const isoTime = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$" });

/** The gateway an event concerns. */
export const gatewayFields = {
  device_id: publicId,
  serial: Type.String(),
  device_name: Type.String(),
};
/** The same, for an event whose gateway may be gone (an alert's status change). */
export const gatewayFieldsOrNull = {
  device_id: nullable(publicId),
  serial: nullable(Type.String()),
  device_name: nullable(Type.String()),
};
/** The Modbus device and register an event concerns; null for an event about the gateway only (offline alerts). */
export const registerFieldsOrNull = {
  modbus_device_id: nullable(publicId),
  modbus_device_name: nullable(Type.String()),
  register_id: nullable(publicId),
  register_name: nullable(Type.String()),
  unit: nullable(Type.String()),
};

/** A gateway as the constructors take it. */
export interface GatewayNames {
  id: string;
  serial: string;
  name: string;
}
/** A register with its Modbus device, as the constructors take it. */
export interface RegisterNames {
  modbusDeviceId: string;
  /** The device's name in the config; null when it has none. */
  modbusDeviceName: string | null;
  id: string;
  name: string;
  unit: string | null;
}

export const gatewayData = (gateway: GatewayNames) => ({
  device_id: gateway.id,
  serial: gateway.serial,
  device_name: gateway.name,
});

export const registerData = (register: RegisterNames | null) => ({
  modbus_device_id: register?.modbusDeviceId ?? null,
  modbus_device_name: register?.modbusDeviceName ?? null,
  register_id: register?.id ?? null,
  register_name: register?.name ?? null,
  unit: register?.unit ?? null,
});
