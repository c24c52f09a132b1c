/**
 * `PUT /edge/v1/status` (docs/fleet.md, "Forwarding"): the status and last-seen
 * time of the site's gateways as the site's own tracker decided them. A change
 * records its device.online / device.offline event on the central, in the same
 * transaction, so the central's webhook stream carries it; a status that is
 * already the central's records nothing. A gateway that is not the site's refuses
 * the whole request (409) and changes nothing.
 */
import { Elysia } from "elysia";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import { CodedError } from "../../lib/errors.ts";
import { deviceStatusEvent } from "../../store/contract/event-types.ts";
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
        rows.push({ row, reported });
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
      return edgeReply(message, { gateways: body.gateways.length, changed });
    },
    { body: message.request },
  );
}
