/**
 * `PUT /edge/v1/status` (docs/fleet.md, "Forwarding", step 4): each gateway's
 * status and last-seen time as the site's own tracker stored them, and each of its
 * Modbus devices' announced state (`modbus_device.offline` / `online`).
 */
import { type Static, Type } from "@sinclair/typebox";
import { deviceHealthStatuses } from "../device-health.ts";
import { maxForwardedGateways } from "./limits.ts";
import { count, nullable, oneOf, unixMs } from "./wire.ts";

const health = oneOf(deviceHealthStatuses);

/**
 * A Modbus device's announced state on the site: `offline` while its
 * `modbus_device.offline` stands, `online` otherwise, with the details its event
 * carries (docs/webhooks.md), so the central's event says what the site's says.
 */
export const ForwardedModbusDevice = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  status: oneOf(["online", "offline"]),
  /** When the site announced this state (Unix ms); null when it was not announced by the running site process. */
  changed_at: nullable(unixMs),
  health,
  previous_health: health,
  last_error: nullable(Type.String()),
  last_answer_at: nullable(unixMs),
});
export type ForwardedModbusDevice = Static<typeof ForwardedModbusDevice>;

/** The statuses a gateway has on the wire (the store's gateway statuses; each side's compiler holds them equal). */
export const ForwardedStatus = Type.Object({
  gateways: Type.Array(
    Type.Object({
      id: Type.String({ minLength: 1, maxLength: 64 }),
      status: oneOf(["online", "offline", "pending", "error"]),
      last_seen: nullable(unixMs),
      /** Optional: a site of an earlier version sends none, and a central of one ignores them. */
      modbus_devices: Type.Optional(Type.Array(ForwardedModbusDevice, { maxItems: maxForwardedGateways })),
    }),
    { maxItems: maxForwardedGateways },
  ),
});

/** Gateways sent, and those whose status or last-seen time changed on the central. */
export const StatusReceipt = Type.Object({ gateways: count, changed: count });
