/**
 * `PUT /edge/v1/inventory` (docs/fleet.md, "Forwarding"): the gateways, Modbus
 * devices and registers a site polls, with the stable ids the site decided, stored
 * in the site's organisation. A gateway of another site, or of the central's own
 * config, is refused (409) and nothing changes.
 */
import { Elysia } from "elysia";
import { inventoryFromWire } from "../../lib/edge-protocol/inventory.ts";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import { CodedError } from "../../lib/errors.ts";
import { GatewayOwnedElsewhereError } from "../../store/contract/inventory.ts";
import type { Store } from "../../store/index.ts";
import { authenticateSite } from "./auth.ts";
import { edgeReply } from "./reply.ts";

export function edgeInventoryRoutes(store: Store) {
  const message = edgeMessages.inventory;
  return new Elysia().put(
    message.path,
    async ({ request, body }) => {
      const site = await authenticateSite(store, request);
      try {
        await store.inventory.syncSite(
          { orgId: site.orgId, name: site.name },
          body.gateways.map(inventoryFromWire),
          Date.now(),
        );
      } catch (error) {
        if (error instanceof GatewayOwnedElsewhereError) throw new CodedError("conflict", `${error.message}.`);
        throw error;
      }
      const registers = body.gateways.reduce(
        (sum, gateway) => sum + gateway.modbusDevices.reduce((count, device) => count + device.registers.length, 0),
        0,
      );
      return edgeReply(message, { gateways: body.gateways.length, registers });
    },
    { body: message.request },
  );
}
