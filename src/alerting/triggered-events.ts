/**
 * The events an alert's trigger records with it (docs/alerts.md, automations):
 * its `alert.triggered` and the `automation.triggered` of each automation on its
 * rule that belongs to the organisation where it fired, each naming the alert
 * (active after a trigger).
 */
import { type AlertSubject, alertTriggered, automationTriggered } from "../store/contract/event-types.ts";
import type { NewEvent } from "../store/contract/events.ts";
import type { AutomationConfig } from "./rule-model.ts";

/**
 * `orgIdByKey`: organisation id by key. `detectorId`: the offline detector's rule id,
 * which automations name also for a Modbus device's offline alert (its own rule id).
 */
export function indexTriggeredEvents(
  automations: readonly AutomationConfig[],
  orgIdByKey: ReadonlyMap<string, number>,
  detectorId: string,
) {
  const byRule = new Map<string, AutomationConfig[]>();
  for (const automation of automations) {
    if (!automation.enabled || automation.trigger.kind !== "rule") continue;
    const list = byRule.get(automation.trigger.ruleId) ?? [];
    list.push(automation);
    byRule.set(automation.trigger.ruleId, list);
  }
  /** The events of an alert triggered at `at`, for the store to build once it knows the alert's id. */
  return function triggeredEvents(
    subject: AlertSubject,
    orgId: number,
    at: number,
    message: string,
    measured: { value: number; threshold: number } | null,
  ): (alertId: string) => NewEvent[] {
    const ruleId = subject.modbusDevice === undefined ? subject.rule.id : detectorId;
    const automations = (byRule.get(ruleId) ?? []).filter((automation) => orgIdByKey.get(automation.orgKey) === orgId);
    return (alertId) => [
      { orgId, occurredAt: at, ...alertTriggered(alertId, subject, message, measured) },
      ...automations.map((automation) => ({
        orgId,
        occurredAt: at,
        ...automationTriggered(automation, {
          alertId,
          alertStatus: "active",
          subject,
          value: measured?.value ?? null,
        }),
      })),
    ];
  };
}
export type TriggeredEvents = ReturnType<typeof indexTriggeredEvents>;
