/**
 * `PUT /edge/v1/status` (docs/fleet.md, "Forwarding", step 4): the status and
 * last-seen time of the site's gateways as the site's own tracker decided them, and
 * their Modbus devices' announced states. A change records its event on the
 * central, in the same transaction, so the central's webhook stream carries it:
 * `device.online` / `device.offline` for a gateway, `modbus_device.offline` /
 * `online` for a device whose announced state differs from the one the central
 * holds (`modbus_devices.offline_announced_at`); a state that is already the
 * central's records nothing. A gateway or device that is not the site's refuses
 * the whole request (409) and changes nothing.
 */
import { Elysia } from "elysia";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import type { ForwardedModbusDevice } from "../../lib/edge-protocol/status.ts";
import { CodedError } from "../../lib/errors.ts";
import { deviceStatusEvent, modbusDeviceStatusEvent } from "../../store/contract/event-types.ts";
import type { GatewayStatusRow } from "../../store/contract/gateways.ts";
import type { Store } from "../../store/index.ts";
import { authenticateSite } from "./auth.ts";
import { edgeReply } from "./reply.ts";

export function edgeStatusRoutes(store: Store, onEvent?: () => void) {
  const message = edgeMessages.status;
  return new Elysia().put(
    message.path,
    async ({ request, body }) => {
      const site = await authenticateSite(store, request);
      const rows = [];
      for (const reported of body.gateways) {
        const row = await store.gateways.statusOf(reported.id.toLowerCase());
        if (row === null || row.orgId !== site.orgId || row.edgeSite !== site.name) {
          throw new CodedError(
            "conflict",
            `Gateway ${reported.id} is not one of site "${site.name}"'s. Nothing was changed.`,
          );
        }
        const names = new Map((await store.gateways.modbusDevices(row.id)).map((device) => [device.uuid, device.name]));
        for (const device of reported.modbus_devices ?? []) {
          if (!names.has(device.id.toLowerCase())) {
            throw new CodedError(
              "conflict",
              `Modbus device ${device.id} is not one of gateway ${reported.id}'s. Nothing was changed.`,
            );
          }
        }
        rows.push({ row, reported, names });
      }
      let changed = 0;
      for (const { row, reported } of rows) {
        if (row.status === reported.status && row.lastSeen === reported.last_seen) continue;
        const change =
          row.status === reported.status
            ? null
            : deviceStatusEvent({ ...row, id: reported.id.toLowerCase() }, reported.status);
        const event = change === null ? null : { orgId: row.orgId, occurredAt: Date.now(), ...change };
        await store.gateways.changeStatus(row.id, reported.status, reported.last_seen, event);
        changed++;
        if (event !== null) onEvent?.();
      }
      const offline = new Set(await store.gateways.offlineAnnouncedDevices());
      for (const { row, reported, names } of rows) {
        for (const device of reported.modbus_devices ?? []) {
          const id = device.id.toLowerCase();
          if (offline.has(id) === (device.status === "offline")) continue;
          await announceModbusDevice(store, row, reported.id.toLowerCase(), { ...device, id }, names.get(id) ?? null);
          onEvent?.();
        }
      }
      return edgeReply(message, { gateways: body.gateways.length, changed });
    },
    { body: message.request },
  );
}

/** Records a site's Modbus device change with the data the site's own event has (docs/webhooks.md). */
function announceModbusDevice(
  store: Store,
  gateway: GatewayStatusRow,
  gatewayId: string,
  device: ForwardedModbusDevice,
  name: string | null,
): Promise<void> {
  const at = device.changed_at ?? Date.now();
  const event = modbusDeviceStatusEvent({
    gateway: { id: gatewayId, serial: gateway.serial, name: gateway.name },
    device: { id: device.id, name },
    status: device.status,
    health: device.health,
    previousHealth: device.previous_health,
    lastError: device.last_error,
    lastAnswerAt: device.last_answer_at,
  });
  return store.gateways.announceModbusDevice(device.id, device.status === "offline" ? at : null, {
    orgId: gateway.orgId,
    occurredAt: at,
    ...event,
  });
}
