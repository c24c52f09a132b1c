/**
 * `modbus_device.offline` / `modbus_device.online` (added under docs/api.md section
 * 9.2; docs/webhooks.md, "Event types"): one Modbus device behind a gateway stopped
 * answering while the gateway stays online, and its first answer after that. A device
 * that goes down with its gateway is told by `device.offline`; the rule that decides
 * is in src/ingest/modbus-device-status.ts.
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoOrNull } from "../../../lib/clock.ts";
import { type DeviceHealthStatus, deviceHealthStatuses } from "../../../lib/device-health.ts";
import { type GatewayNames, gatewayData, gatewayFields, isoTime, literals, nullable, publicId } from "./fields.ts";

const health = literals(deviceHealthStatuses);

export const ModbusDeviceStatusData = Type.Object(
  {
    ...gatewayFields,
    modbus_device_id: publicId,
    modbus_device_name: nullable(Type.String()),
    status: literals(["online", "offline"] as const),
    /** The device's health now (docs/api.md section 2.6). */
    health,
    /** Its health before: the last answering one for `offline`, the silent one for `online`. */
    previous_health: health,
    last_error: nullable(Type.String()),
    last_answer_at: nullable(isoTime),
  },
  { additionalProperties: false },
);
export type ModbusDeviceStatusData = Static<typeof ModbusDeviceStatusData>;

/** A Modbus device's change as the status tracker decides it. */
export interface ModbusDeviceChange {
  gateway: GatewayNames;
  device: { id: string; name: string | null };
  status: "online" | "offline";
  health: DeviceHealthStatus;
  previousHealth: DeviceHealthStatus;
  lastError: string | null;
  lastAnswerAt: number | null;
}

export function modbusDeviceStatusEvent(change: ModbusDeviceChange) {
  return {
    type: change.status === "online" ? ("modbus_device.online" as const) : ("modbus_device.offline" as const),
    data: {
      ...gatewayData(change.gateway),
      modbus_device_id: change.device.id,
      modbus_device_name: change.device.name,
      status: change.status,
      health: change.health,
      previous_health: change.previousHealth,
      last_error: change.lastError,
      last_answer_at: isoOrNull(change.lastAnswerAt),
    } satisfies ModbusDeviceStatusData,
  };
}
