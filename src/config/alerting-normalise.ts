/**
 * A checked file's `rules`, `offline_alerts` and `automations` -> the shapes of
 * src/lib/rules.ts: every id decided, every reference turned into the inventory's
 * public ids, defaults that depend on other fields filled in. Only called when the
 * file has no problems (alerting-checks.ts), so references resolve.
 */
import type { Inventory, InventoryGateway } from "../lib/inventory.ts";
import type {
  AutomationConfig,
  AutomationTrigger,
  Condition,
  OfflineDetectorConfig,
  RuleConfig,
} from "../lib/rules.ts";
import type { RawAutomation, RawConfig, RawOfflineAlerts, RawRule } from "./schema.ts";
import { derivedId } from "./stable-ids.ts";

/** How a condition reads in the default message: `co2 above {threshold} {unit}: {value} {unit}`. */
export const conditionWords: Record<Condition, string> = {
  gt: "above",
  gte: "at or above",
  lt: "below",
  lte: "at or below",
  eq: "equal to",
  ne: "not equal to",
};

/**
 * The message a rule gets when the file writes none. `{unit}` is left out for a
 * register without a unit, so the alert does not read `above 5 : 7`.
 */
export function defaultRuleMessage(register: string, condition: Condition, unit: string | null): string {
  const withUnit = (placeholder: string) => (unit === null || unit === "" ? placeholder : `${placeholder} {unit}`);
  return `${register} ${conditionWords[condition]} ${withUnit("{threshold}")}: ${withUnit("{value}")}`;
}

export interface Alerting {
  rules: RuleConfig[];
  offlineDetector: OfflineDetectorConfig;
  automations: AutomationConfig[];
}

export function normaliseAlerting(raw: RawConfig, inventory: Inventory): Alerting {
  const gateways = new Map<string, { gateway: InventoryGateway; orgKey: string }>();
  for (const organization of inventory.organizations) {
    for (const gateway of organization.gateways) gateways.set(gateway.serial, { gateway, orgKey: organization.key });
  }

  const rules = raw.rules.map((rule) => normaliseRule(rule, gateways));
  const offlineDetector = normaliseDetector(raw.offline_alerts);
  const onlyOrganization = raw.organizations.length === 1 ? raw.organizations[0]?.key : undefined;
  const automations = raw.automations.map((automation) => {
    const trigger = normaliseTrigger(automation, rules, offlineDetector);
    const rule = raw.rules.find((r) => trigger.kind === "rule" && r.name === automation.trigger.rule);
    const orgKey = automation.organization ?? (rule && gateways.get(rule.gateway)?.orgKey) ?? onlyOrganization;
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

function normaliseRule(
  rule: RawRule,
  gateways: Map<string, { gateway: InventoryGateway; orgKey: string }>,
): RuleConfig {
  const gateway = gateways.get(rule.gateway)?.gateway;
  const device = gateway?.modbusDevices.find((d) =>
    typeof rule.device === "string" ? d.name === rule.device : d.name === null && d.slaveId === rule.device,
  );
  const register =
    device?.registers.find((r) => r.name === rule.register) ??
    device?.registers.find((r) => r.id === rule.register.toLowerCase());
  // alerting-checks.ts has refused a file where this could happen.
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

function normaliseDetector(section: RawOfflineAlerts): OfflineDetectorConfig {
  return {
    id: idOr(section.id, () => derivedId.offlineDetector()),
    name: section.name,
    enabled: section.enabled,
    severity: section.severity,
  };
}

function normaliseTrigger(
  automation: RawAutomation,
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

/** A written id wins; UUIDs are compared and stored in lower case. */
function idOr(written: string | undefined, derive: () => string): string {
  return written === undefined ? derive() : written.toLowerCase();
}
