/**
 * The alert rule model: rules and automations as the config decides them, the shapes
 * the config produces and the rules engine consumes (docs/api.md sections 3 and 6). What a
 * condition means is in conditions.ts, what a message may say in messages.ts.
 */
export const conditions = ["gt", "gte", "lt", "lte", "eq", "ne"] as const;
export type Condition = (typeof conditions)[number];
export const severities = ["critical", "warning", "info"] as const;
export type Severity = (typeof severities)[number];

export interface RuleConfig {
  /** Stable rule id (UUID): the alerts' and events' `rule_id`. */
  id: string;
  name: string;
  enabled: boolean;
  /** The watched register and where it is (public ids). */
  registerId: string;
  gatewayId: string;
  modbusDeviceId: string;
  condition: Condition;
  threshold: number;
  severity: Severity;
  /** Message template; the placeholders of messages.ts are filled in. */
  message: string;
  /** How far back past the threshold the value must come to count as returned (>= 0). */
  hysteresis: number;
  /** How long the condition must hold before it counts (ms, >= 0). */
  forMs: number;
}

/** The offline detector: itself a rule, with a stable id and name (AlertTriggeredEvent needs both). */
export interface OfflineDetectorConfig {
  id: string;
  name: string;
  enabled: boolean;
  severity: Severity;
  /** Also an alert per Modbus device announced offline (`modbus_device.offline`) while its gateway is online. */
  devices: boolean;
}

export type AutomationTrigger = { kind: "rule"; ruleId: string } | { kind: "schedule"; cron: string };

/** An action an automation runs; `type` is open for more kinds later. */
export type AutomationAction = { type: "webhook" };

export interface AutomationConfig {
  id: string;
  name: string;
  enabled: boolean;
  /** Organisation whose endpoints receive `automation.triggered` (from the rule's gateway, or set). */
  orgKey: string;
  trigger: AutomationTrigger;
  actions: AutomationAction[];
}
