/**
 * A site's alerts on its central (docs/fleet.md, "Alerts"). The site evaluates
 * its rules and is the one writer of its alerts:
 * - `GET /edge/v1/alerts`: the site's sequence number of the last of its alert
 *   events the central applied (where the site resumes), and the acknowledges and
 *   resolves asked on the central, for the site to apply;
 * - `POST /edge/v1/alerts`: alert events in the site's order, each with the site's
 *   message id, and the whole state of every alert they name. The central stores
 *   the state and records each event it does not have yet under the same message
 *   id, so its webhook stream carries each once and a resent batch records nothing.
 *   An alert or gateway that is not the site's refuses the whole batch (409).
 */
import { Elysia } from "elysia";
import { edgeMessages } from "../../lib/edge-protocol/messages.ts";
import { CodedError } from "../../lib/errors.ts";
import type { ForwardedAlert } from "../../store/contract/alerts.ts";
import type { Store } from "../../store/index.ts";
import { authenticateSite } from "./auth.ts";
import { edgeReply } from "./reply.ts";

const notTheSites = (site: string, what: string) =>
  new CodedError("conflict", `${what} is not one of site "${site}"'s. Nothing was changed.`);

export function edgeAlertRoutes(store: Store, onEvent?: () => void) {
  const { alertPosition, alerts: alertsMessage } = edgeMessages;
  return new Elysia()
    .get(alertPosition.path, async ({ request }) => {
      const site = await authenticateSite(store, request);
      const requests = await store.alerts.requestsOfSite(site.orgId, site.name);
      return edgeReply(alertPosition, {
        forwarded_through: await store.alerts.forwardedPosition(site.orgId, site.name),
        requests: requests.map((asked) => ({
          alert_id: asked.alertUuid,
          action: asked.action,
          note: asked.note,
          requested_at: asked.at,
        })),
      });
    })
    .post(
      alertsMessage.path,
      async ({ request, body }) => {
        const site = await authenticateSite(store, request);
        const alerts: ForwardedAlert[] = [];
        for (const alert of body.alerts) {
          const uuid = alert.id.toLowerCase();
          const gateway = await store.gateways.statusOf(alert.device_id.toLowerCase());
          if (gateway === null || gateway.orgId !== site.orgId || gateway.edgeSite !== site.name) {
            throw notTheSites(site.name, `Gateway ${alert.device_id}`);
          }
          const known = await store.alerts.find(uuid);
          if (known !== null && (known.orgId !== site.orgId || known.edgeSite !== site.name)) {
            throw notTheSites(site.name, `Alert ${alert.id}`);
          }
          alerts.push({
            uuid,
            gatewayId: gateway.id,
            gatewayUuid: alert.device_id.toLowerCase(),
            registerUuid: alert.register_id?.toLowerCase() ?? null,
            ruleId: alert.rule_id,
            severity: alert.severity,
            message: alert.message,
            status: alert.status,
            value: alert.value,
            createdAt: alert.created_at,
            lastTriggeredAt: alert.last_triggered_at,
            returnedAt: alert.returned_at,
            ackAt: alert.ack_at,
            ackNote: alert.ack_note,
            resolvedAt: alert.resolved_at,
            resolveNote: alert.resolve_note,
            entryCount: alert.entry_count,
          });
        }
        const sent = new Set(alerts.map((alert) => alert.uuid));
        const events = body.events.map((event) => {
          const alertUuid = typeof event.data.alert_id === "string" ? event.data.alert_id.toLowerCase() : "";
          if (!sent.has(alertUuid)) {
            throw new CodedError(
              "invalid_parameter",
              `Event ${event.message_id} names alert ${String(event.data.alert_id)}, whose state is not in the batch. Nothing was changed.`,
            );
          }
          return {
            seq: event.seq,
            alertUuid,
            messageId: event.message_id,
            type: event.type,
            occurredAt: event.occurred_at,
            data: event.data,
          };
        });
        const recorded = await store.alerts.applyForwarded({ orgId: site.orgId, alerts, events }, Date.now());
        if (recorded > 0) onEvent?.();
        return edgeReply(alertsMessage, { alerts: alerts.length, events: events.length, recorded });
      },
      { body: alertsMessage.request },
    );
}
