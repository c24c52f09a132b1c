/**
 * The alert writes a rule's condition asks for (docs/alerts.md): the alert opens
 * or re-triggers with the rule's filled-in message, its `alert.triggered` and any
 * automations on the rule, or returns with its `alert.returned`, each written with
 * its change by one store operation.
 */
import { randomUuid } from "../lib/ids.ts";
import { type AlertSubject, alertReturned, type GatewayNames } from "../store/contract/event-types.ts";
import type { Store } from "../store/index.ts";
import { fillMessage } from "./messages.ts";
import type { RuleConfig } from "./rule-model.ts";
import type { TriggeredEvents } from "./triggered-events.ts";

/** A rule on its register, with what its message and events name. */
export interface RuleTarget {
  rule: RuleConfig;
  /** The rule, gateway and register as its events name them. */
  subject: AlertSubject;
  /** The Modbus device as messages name it (its name, else its unit id). */
  device: string;
  gateway: { id: number; orgId: number };
}

/** A gateway as events name it. */
export function gatewayNames(gateway: { uuid: string; serial: string; name: string }): GatewayNames {
  return { id: gateway.uuid, serial: gateway.serial, name: gateway.name };
}

export function ruleAlerts(store: Pick<Store, "alerts">, triggeredEvents: TriggeredEvents) {
  const { alerts } = store;
  return {
    /** The condition held (for its `for`): the rule's alert opens or re-triggers. */
    trigger(target: RuleTarget, value: number, at: number): Promise<unknown> {
      const { rule, subject, gateway } = target;
      const message = fillMessage(rule.message, {
        value,
        unit: subject.register?.unit ?? null,
        threshold: rule.threshold,
        register: subject.register?.name ?? "",
        device: target.device,
        gateway: subject.gateway.name,
      });
      const trigger = {
        ruleId: rule.id,
        gatewayId: gateway.id,
        registerUuid: rule.registerId,
        orgId: gateway.orgId,
        severity: rule.severity,
        message,
        value,
        at,
        newUuid: randomUuid(),
      };
      return alerts.trigger(
        trigger,
        triggeredEvents(subject, gateway.orgId, at, message, { value, threshold: rule.threshold }),
      );
    },

    /** The value came back past the hysteresis: the rule's alert returns. */
    return(target: RuleTarget, value: number, at: number): Promise<unknown> {
      const { rule, subject, gateway } = target;
      return alerts.markReturned({ ruleId: rule.id, gatewayId: gateway.id, at, value }, (alertId) => [
        { orgId: gateway.orgId, occurredAt: at, ...alertReturned(alertId, subject, value) },
      ]);
    },
  };
}
