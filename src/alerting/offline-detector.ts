/**
 * The offline detector (docs/api.md section 3: alert source `detector`; docs/alerts.md):
 * a gateway that goes offline opens its offline alert, one that reports again
 * lets it return. Each change is written with its event (and the automations on
 * the detector) by one store operation.
 */
import { randomUuid } from "../lib/ids.ts";
import { type AlertSubject, alertReturned } from "../store/contract/event-types.ts";
import type { Store } from "../store/index.ts";
import { offlineMessage } from "./messages.ts";
import { gatewayNames } from "./rule-alerts.ts";
import type { OfflineDetectorConfig } from "./rule-model.ts";
import type { TriggeredEvents } from "./triggered-events.ts";

export interface DetectedGateway {
  id: number;
  uuid: string;
  orgId: number;
  serial: string;
  name: string;
}

export function createOfflineDetector(options: {
  store: Pick<Store, "alerts">;
  detector: OfflineDetectorConfig;
  /** The gateways it watches, by public id. */
  gateways: ReadonlyMap<string, DetectedGateway>;
  triggeredEvents: TriggeredEvents;
}) {
  const { detector, gateways } = options;
  const { alerts } = options.store;

  function gatewayOf(gatewayUuid: string): DetectedGateway {
    const gateway = gateways.get(gatewayUuid);
    if (gateway === undefined) throw new Error(`the offline detector does not watch gateway ${gatewayUuid}`);
    return gateway;
  }
  const subjectOf = (gateway: DetectedGateway): AlertSubject => ({
    rule: { id: detector.id, name: detector.name, severity: detector.severity },
    source: "detector",
    condition: "offline",
    gateway: gatewayNames(gateway),
    register: null,
  });

  return {
    /** Whether a status change of this gateway concerns the detector (it is enabled and knows the gateway). */
    watches: (gatewayUuid: string): boolean => detector.enabled && gateways.has(gatewayUuid),

    /** The gateway went offline: its offline alert opens (or re-triggers). */
    opened(gatewayUuid: string, at: number): Promise<unknown> {
      const gateway = gatewayOf(gatewayUuid);
      const message = offlineMessage(gateway.name);
      const trigger = {
        ruleId: detector.id,
        gatewayId: gateway.id,
        orgId: gateway.orgId,
        severity: detector.severity,
        message,
        value: null,
        at,
        newUuid: randomUuid(),
      };
      return alerts.trigger(trigger, options.triggeredEvents(subjectOf(gateway), gateway.orgId, at, message, null));
    },

    /** The gateway reports again: its offline alert returns. */
    returned(gatewayUuid: string, at: number): Promise<unknown> {
      const gateway = gatewayOf(gatewayUuid);
      return alerts.markReturned({ ruleId: detector.id, gatewayId: gateway.id, at, value: null }, (alertId) => [
        { orgId: gateway.orgId, occurredAt: at, ...alertReturned(alertId, subjectOf(gateway), null) },
      ]);
    },
  };
}
