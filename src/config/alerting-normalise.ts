/**
 * A checked file's `rules`, `offline_alerts` and `automations` -> the alert rule model
 * (alerting/rule-model.ts): every id decided, every reference turned into the
 * inventory's public ids, defaults that depend on other fields filled in. Only called
 * when the file has no problems (alerting-references.ts), so references resolve.
 */
import { defaultRuleMessage } from "../alerting/messages.ts";
import type { AutomationConfig, AutomationTrigger, OfflineDetectorConfig, RuleConfig } from "../alerting/rule-model.ts";
import type { Inventory, InventoryGateway } from "../lib/inventory.ts";
import type { FileIndex } from "./file-index.ts";
import type { DefaultedAutomation, DefaultedFile, DefaultedOfflineAlerts, DefaultedRule } from "./schema.ts";
import { derivedId, idOr } from "./stable-ids.ts";

export interface Alerting {
  rules: RuleConfig[];
  offlineDetector: OfflineDetectorConfig;
  automations: AutomationConfig[];
}

export function normaliseAlerting(file: DefaultedFile, index: FileIndex, inventory: Inventory): Alerting {
  const gateways = new Map<string, InventoryGateway>();
  for (const organization of inventory.organizations) {
    for (const gateway of organization.gateways) gateways.set(gateway.serial, gateway);
  }

  const rules = file.rules.map((rule) => normaliseRule(rule, gateways));
  const offlineDetector = normaliseDetector(file.offline_alerts);
  const automations = file.automations.map((automation) => {
    const trigger = normaliseTrigger(automation, rules, offlineDetector);
    const rule = file.rules.find((r) => trigger.kind === "rule" && r.name === automation.trigger.rule);
    const ruleOrgKey = rule === undefined ? undefined : index.gatewaysBySerial.get(rule.gateway)?.orgKey;
    const orgKey = automation.organization ?? ruleOrgKey ?? index.organizations.onlyKey;
    if (orgKey === undefined) throw new Error(`automation ${automation.name}: no organisation after validation`);
    return {
      id: idOr(automation.id, () => derivedId.automation(automation.name)),
      name: automation.name,
      enabled: automation.enabled,
      orgKey,
      trigger,
      actions: automation.actions.map((action) => ({ type: action.type })),
    } satisfies AutomationConfig;
  });
  return { rules, offlineDetector, automations };
}

function normaliseRule(rule: DefaultedRule, gateways: Map<string, InventoryGateway>): RuleConfig {
  const gateway = gateways.get(rule.gateway);
  const device = gateway?.modbusDevices.find((d) =>
    typeof rule.device === "string" ? d.name === rule.device : d.name === null && d.slaveId === rule.device,
  );
  const register =
    device?.registers.find((r) => r.name === rule.register) ??
    device?.registers.find((r) => r.id === rule.register.toLowerCase());
  // alerting-references.ts has refused a file where this could happen.
  if (gateway === undefined || device === undefined || register === undefined) {
    throw new Error(`rule ${rule.name}: its register does not resolve after validation`);
  }
  return {
    id: idOr(rule.id, () => derivedId.rule(rule.name)),
    name: rule.name,
    enabled: rule.enabled,
    registerId: register.id,
    gatewayId: gateway.id,
    modbusDeviceId: device.id,
    condition: rule.condition,
    threshold: rule.threshold,
    severity: rule.severity,
    message: rule.message ?? defaultRuleMessage(register.name, rule.condition, register.unit),
    hysteresis: rule.hysteresis,
    forMs: rule.for_s * 1000,
  };
}

function normaliseDetector(section: DefaultedOfflineAlerts): OfflineDetectorConfig {
  return {
    id: idOr(section.id, () => derivedId.offlineDetector()),
    name: section.name,
    enabled: section.enabled,
    severity: section.severity,
    devices: section.devices,
  };
}

function normaliseTrigger(
  automation: DefaultedAutomation,
  rules: RuleConfig[],
  detector: OfflineDetectorConfig,
): AutomationTrigger {
  const { rule: ruleName, schedule } = automation.trigger;
  if (schedule !== undefined) return { kind: "schedule", cron: schedule.trim() };
  const ruleId =
    rules.find((rule) => rule.name === ruleName)?.id ?? (ruleName === detector.name ? detector.id : undefined);
  if (ruleId === undefined)
    throw new Error(`automation ${automation.name}: its trigger does not resolve after validation`);
  return { kind: "rule", ruleId };
}
