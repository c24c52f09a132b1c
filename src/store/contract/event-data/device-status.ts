/**
 * `device.online` / `device.offline` (docs/api.md section 6.6, device status; the
 * gateway's `device_name` added): the same whether a box's status tracker decides
 * the change or a central takes it from the site that forwards the gateway
 * (docs/fleet.md). None for `pending` or `error`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoOrNull } from "../../../lib/clock.ts";
import { type GatewayStatus, gatewayStatuses } from "../gateways.ts";
import { type GatewayNames, gatewayData, gatewayFields, isoTime, literals, nullable } from "./fields.ts";

export const DeviceStatusData = Type.Object(
  {
    ...gatewayFields,
    status: literals(["online", "offline"] as const),
    previous_status: nullable(literals(gatewayStatuses)),
    /** When the gateway last reported, before this change. */
    last_seen: nullable(isoTime),
  },
  { additionalProperties: false },
);
export type DeviceStatusData = Static<typeof DeviceStatusData>;

/** The event of a status change, or null when the new status has none. */
export function deviceStatusEvent(
  gateway: GatewayNames & { status: GatewayStatus; lastSeen: number | null },
  next: GatewayStatus,
) {
  if (next !== "online" && next !== "offline") return null;
  return {
    type: next === "online" ? ("device.online" as const) : ("device.offline" as const),
    data: {
      ...gatewayData(gateway),
      status: next,
      previous_status: gateway.status,
      last_seen: isoOrNull(gateway.lastSeen),
    } satisfies DeviceStatusData,
  };
}
