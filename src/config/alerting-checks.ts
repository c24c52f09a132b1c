/**
 * Cross-field rules of `rules`, `offline_alerts` and `automations`: what a rule names
 * (gateway, device, register) must exist and be numeric, hysteresis only where it
 * means something, message placeholders the engine knows, names and ids unique, an
 * automation's trigger (a rule of the file, or a cron expression croner accepts) and
 * its organisation. Like rules.ts they run on unchecked data, so every look at a
 * value checks its type first, and a reference that cannot be resolved because of a
 * problem reported elsewhere is left alone rather than reported twice.
 */
import { Cron } from "croner";
import { type Condition, conditions } from "../lib/rules.ts";
import { lookupTemplate, type RegisterRecord, resolveRegisters } from "./device-registers.ts";
import { formatPath, type Path } from "./problems.ts";
import { FirstSeen, type IdRegistry, type Report } from "./registries.ts";
import { defaults } from "./schema.ts";
import { naturalKey } from "./rules.ts";
import { derivedId } from "./stable-ids.ts";
import type { BusType } from "./types.ts";
import { didYouMean } from "./suggest.ts";
import { describeValue, isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

/** What rules.ts learnt of the organisations (its `Organizations` fits). */
export interface KnownOrganizations {
  byKey: ReadonlyMap<string, unknown>;
  /** How many entries the list has, valid or not. */
  count: number;
  onlyKey: string | undefined;
}

/** The placeholders the rules engine fills in a message (RuleConfig.message). */
export const messagePlaceholders = ["value", "unit", "threshold", "register", "device", "gateway"] as const;

/** Conditions a hysteresis applies to: a band only makes sense on one side of a limit. */
export const hysteresisConditions: readonly Condition[] = ["gt", "gte", "lt", "lte"];

export function checkAlerting(
  data: Record<string, unknown>,
  organizations: KnownOrganizations,
  report: Report,
  ids: IdRegistry,
): void {
  const gateways = indexGateways(data.gateways, organizations);
  // The detector claims its id first: its derived id is fixed, so a clash is the rule's to fix.
  const detector = checkOfflineAlerts(data.offline_alerts, ids);
  const rules = checkRules(data.rules, gateways, detector, report, ids);
  checkAutomations(data.automations, rules, detector, organizations, report, ids);
}

// --- What the gateways offer, as far as the file can be read -------------------------

interface DeviceInfo {
  path: Path;
  name: string | undefined;
  slaveId: number | undefined;
  /** Registers as polled (template ones included), by name. */
  registers: Map<string, RegisterRecord>;
  /** The same registers' names by their id (written, or derived as the inventory derives it). */
  namesById: Map<string, string>;
  /** Names `exclude` drops, with where. */
  excluded: Map<string, Path>;
  /** The template is unknown or unreadable: which registers exist cannot be told. */
  registersUncertain: boolean;
}

interface GatewayInfo {
  serial: string;
  /** The gateway's organisation, when it is a valid one. */
  orgKey: string | undefined;
  devices: DeviceInfo[];
}

function indexGateways(list: unknown, organizations: KnownOrganizations): Map<string, GatewayInfo> {
  const bySerial = new Map<string, GatewayInfo>();
  listOrEmpty(list).forEach((gateway, i) => {
    if (!isRecord(gateway)) return;
    const serial = stringOrUndefined(gateway.serial);
    // A repeated serial is reported by rules.ts; the first gateway is the one a rule names.
    if (serial === undefined || bySerial.has(serial)) return;
    const written = stringOrUndefined(gateway.organization);
    let orgKey: string | undefined;
    if (written !== undefined) orgKey = organizations.byKey.has(written) ? written : undefined;
    else if (gateway.organization === undefined && organizations.count === 1) orgKey = organizations.onlyKey;
    const busType = isRecord(gateway.bus) ? (stringOrUndefined(gateway.bus.type) as BusType | undefined) : undefined;
    const devices = listOrEmpty(gateway.devices).flatMap((device, j) =>
      isRecord(device) ? [indexDevice(device, ["gateways", i, "devices", j], serial, busType)] : [],
    );
    bySerial.set(serial, { serial, orgKey, devices });
  });
  return bySerial;
}

function indexDevice(device: Record<string, unknown>, path: Path, serial: string, busType: BusType | undefined): DeviceInfo {
  const lookup = lookupTemplate(device.template);
  const excluded = new Map<string, Path>();
  listOrEmpty(device.exclude).forEach((name, k) => {
    if (typeof name === "string" && !excluded.has(name)) excluded.set(name, [...path, "exclude", k]);
  });
  const template = lookup.kind === "found" ? lookup.template : undefined;
  const resolved = resolveRegisters(device.registers, template, new Set(excluded.keys()), path);
  const registers = new Map<string, RegisterRecord>();
  for (const register of resolved.registers)
    if (!registers.has(register.name)) registers.set(register.name, register.record);
  const key = naturalKey(device, busType);
  const namesById = new Map<string, string>();
  for (const [name, record] of registers) {
    const written = stringOrUndefined(record.id);
    const id = written?.toLowerCase() ?? (key === undefined ? undefined : derivedId.register(serial, key, name));
    if (id !== undefined) namesById.set(id, name);
  }
  return {
    path,
    namesById,
    name: stringOrUndefined(device.name),
    slaveId: typeof device.slave_id === "number" ? device.slave_id : undefined,
    registers,
    excluded,
    registersUncertain: lookup.kind === "unknown" || lookup.kind === "unreadable",
  };
}

// --- offline_alerts -------------------------------------------------------------------

interface DetectorInfo {
  /** Its name in effect, when it is a usable one. */
  name: string | undefined;
  /** Whether the file writes the name (or it is the default). */
  nameWritten: boolean;
}

function checkOfflineAlerts(section: unknown, ids: IdRegistry): DetectorInfo {
  const record = isRecord(section) ? section : {};
  ids.claim("rule", record.id, ["offline_alerts"], derivedId.offlineDetector());
  if (record.name === undefined) return { name: defaults.offlineName, nameWritten: false };
  const name = stringOrUndefined(record.name);
  return { name: name === "" ? undefined : name, nameWritten: true };
}

// --- rules ----------------------------------------------------------------------------

interface RuleInfo {
  path: Path;
  /** The gateway it watches, when that resolves. */
  gateway: GatewayInfo | undefined;
}

function checkRules(
  list: unknown,
  gateways: Map<string, GatewayInfo>,
  detector: DetectorInfo,
  report: Report,
  ids: IdRegistry,
): Map<string, RuleInfo> {
  const byName = new Map<string, RuleInfo>();
  const names = new FirstSeen("name", report);
  listOrEmpty(list).forEach((rule, i) => {
    if (!isRecord(rule)) return;
    const path: Path = ["rules", i];
    const name = stringOrUndefined(rule.name);
    let nameIsNew = name !== undefined && name !== "" && names.isNew(name, [...path, "name"]);
    if (nameIsNew && name === detector.name) {
      report(
        [...path, "name"],
        detector.nameWritten
          ? `duplicate name "${name}" (also the offline detector's, at offline_alerts.name)`
          : `duplicate name "${name}" (also the offline detector's default name; rename this rule or set offline_alerts.name)`,
      );
      nameIsNew = false;
    }
    ids.claim("rule", rule.id, path, nameIsNew ? derivedId.rule(name as string) : undefined);

    const gateway = checkRuleTarget(rule, path, gateways, report);
    checkHysteresis(rule, path, report);
    checkMessage(rule.message, [...path, "message"], report);
    if (nameIsNew) byName.set(name as string, { path, gateway });
  });
  return byName;
}

/** gateway -> device -> register, each reported only when the one before it resolved. */
function checkRuleTarget(
  rule: Record<string, unknown>,
  path: Path,
  gateways: Map<string, GatewayInfo>,
  report: Report,
): GatewayInfo | undefined {
  const serial = stringOrUndefined(rule.gateway);
  if (serial === undefined || serial === "") return undefined;
  const gateway = gateways.get(serial);
  if (gateway === undefined) {
    report(
      [...path, "gateway"],
      `names gateway "${serial}", which is not defined${didYouMean(serial, [...gateways.keys()])}`,
    );
    return undefined;
  }
  const device = findDevice(rule.device, [...path, "device"], gateway, report);
  if (device !== undefined) checkRuleRegister(rule.register, [...path, "register"], device, report);
  return gateway;
}

function deviceLabel(device: DeviceInfo): string {
  return device.name === undefined ? `the device with slave_id ${device.slaveId}` : `device "${device.name}"`;
}

function findDevice(ref: unknown, path: Path, gateway: GatewayInfo, report: Report): DeviceInfo | undefined {
  if (typeof ref === "string" && ref !== "") {
    const device = gateway.devices.find((d) => d.name === ref);
    if (device === undefined) {
      const named = gateway.devices.flatMap((d) => (d.name === undefined ? [] : [d.name]));
      report(path, `names device "${ref}", which gateway "${gateway.serial}" does not have${didYouMean(ref, named)}`);
    }
    return device;
  }
  if (typeof ref !== "number" || !Number.isInteger(ref)) return undefined;
  const unnamed = gateway.devices.filter((d) => d.name === undefined && d.slaveId === ref);
  if (unnamed.length === 1) return unnamed[0];
  if (unnamed.length > 1) {
    const where = unnamed.map((d) => formatPath(d.path)).join(", ");
    report(
      path,
      `names slave_id ${ref}, which ${unnamed.length} unnamed devices of gateway "${gateway.serial}" have (${where}); give the device a name and use that`,
    );
    return undefined;
  }
  const named = gateway.devices.find((d) => d.name !== undefined && d.slaveId === ref);
  const hint = named === undefined ? "" : `; device "${named.name}" has that slave_id: use its name`;
  report(path, `names slave_id ${ref}, which no unnamed device of gateway "${gateway.serial}" has${hint}`);
  return undefined;
}

function checkRuleRegister(ref: unknown, path: Path, device: DeviceInfo, report: Report): void {
  const written = stringOrUndefined(ref);
  if (written === undefined || written === "") return;
  // A register is named by its name, or by its id.
  const name = device.registers.has(written) ? written : (device.namesById.get(written.toLowerCase()) ?? written);
  const register = device.registers.get(name);
  if (register === undefined) {
    if (device.registersUncertain) return;
    const excludedAt = device.excluded.get(name);
    report(
      path,
      excludedAt === undefined
        ? `names register "${name}", which ${deviceLabel(device)} does not have${didYouMean(name, [...device.registers.keys()])}`
        : `names register "${name}", which ${formatPath(excludedAt)} leaves out of ${deviceLabel(device)}`,
    );
    return;
  }
  if (register.data_type === "string") {
    report(
      path,
      `names register "${name}", which holds text (data_type string); a rule needs a register with a numeric value`,
    );
  }
}

function checkHysteresis(rule: Record<string, unknown>, path: Path, report: Report): void {
  const condition = conditions.find((c) => c === rule.condition);
  if (rule.hysteresis === undefined || condition === undefined || hysteresisConditions.includes(condition)) return;
  report(
    [...path, "hysteresis"],
    `is only allowed when condition is gt, gte, lt or lte (this rule's condition is ${condition})`,
  );
}

/** A placeholder the engine does not know would be sent out as written: refuse it. */
function checkMessage(message: unknown, path: Path, report: Report): void {
  if (typeof message !== "string") return;
  for (const match of message.matchAll(/\{(\w+)\}/g)) {
    const name = match[1] as string;
    if ((messagePlaceholders as readonly string[]).includes(name)) continue;
    const suggestion = didYouMean(name, messagePlaceholders).replace(/"([^"]*)"/, "{$1}");
    const known = messagePlaceholders.map((p) => `{${p}}`).join(", ");
    report(path, `has an unknown placeholder {${name}}${suggestion}; the placeholders are ${known}`);
    return;
  }
}

// --- automations ----------------------------------------------------------------------

type ResolvedTrigger =
  | { kind: "rule"; name: string; rule: RuleInfo }
  | { kind: "detector" }
  | { kind: "schedule" }
  /** Broken, or names something that is not there: reported already. */
  | { kind: "unknown" };

function checkAutomations(
  list: unknown,
  rules: Map<string, RuleInfo>,
  detector: DetectorInfo,
  organizations: KnownOrganizations,
  report: Report,
  ids: IdRegistry,
): void {
  const names = new FirstSeen("name", report);
  listOrEmpty(list).forEach((automation, i) => {
    if (!isRecord(automation)) return;
    const path: Path = ["automations", i];
    const name = stringOrUndefined(automation.name);
    const nameIsNew = name !== undefined && name !== "" && names.isNew(name, [...path, "name"]);
    ids.claim("automation", automation.id, path, nameIsNew ? derivedId.automation(name as string) : undefined);
    const trigger = checkTrigger(automation.trigger, [...path, "trigger"], rules, detector, report);
    checkAutomationOrganization(automation.organization, [...path, "organization"], trigger, organizations, report);
  });
}

function checkTrigger(
  trigger: unknown,
  path: Path,
  rules: Map<string, RuleInfo>,
  detector: DetectorInfo,
  report: Report,
): ResolvedTrigger {
  if (!isRecord(trigger)) return { kind: "unknown" };
  const hasRule = trigger.rule !== undefined;
  const hasSchedule = trigger.schedule !== undefined;
  if (hasRule && hasSchedule) {
    report(path, "must have either rule or schedule, not both");
    return { kind: "unknown" };
  }
  if (!hasRule && !hasSchedule) {
    // An unknown field (a misspelt `rule`, say) is the structure check's to report.
    if (Object.keys(trigger).length === 0) {
      report(path, "must have rule (the name of a rule) or schedule (a cron expression)");
    }
    return { kind: "unknown" };
  }

  if (hasSchedule) {
    const schedule = stringOrUndefined(trigger.schedule);
    if (schedule === undefined || schedule === "") return { kind: "unknown" };
    const problem = cronProblem(schedule);
    if (problem !== undefined) {
      report([...path, "schedule"], problem);
      return { kind: "unknown" };
    }
    return { kind: "schedule" };
  }

  const name = stringOrUndefined(trigger.rule);
  if (name === undefined || name === "") return { kind: "unknown" };
  const rule = rules.get(name);
  if (rule !== undefined) return { kind: "rule", name, rule };
  if (name === detector.name) return { kind: "detector" };
  const known = [...rules.keys(), ...(detector.name === undefined ? [] : [detector.name])];
  report([...path, "rule"], `names rule "${name}", which is not defined${didYouMean(name, known)}`);
  return { kind: "unknown" };
}

/**
 * 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); croner,
 * which runs the schedule, decides what each field may hold and says what is wrong.
 */
export function cronProblem(expression: string): string | undefined {
  const fields = expression
    .trim()
    .split(/\s+/)
    .filter((field) => field !== "");
  if (fields.length !== 5 && fields.length !== 6) {
    return `must be a cron expression of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first); got ${describeValue(expression)} (${fields.length} field${fields.length === 1 ? "" : "s"})`;
  }
  let cron: Cron;
  try {
    cron = new Cron(expression, { paused: true });
  } catch (error) {
    return `is not a valid cron expression: ${(error as Error).message}`;
  }
  try {
    if (cron.nextRun() === null) return `never runs: no date matches ${describeValue(expression)}`;
  } finally {
    cron.stop();
  }
  return undefined;
}

function checkAutomationOrganization(
  written: unknown,
  path: Path,
  trigger: ResolvedTrigger,
  organizations: KnownOrganizations,
  report: Report,
): void {
  const orgKey = stringOrUndefined(written);
  if (orgKey !== undefined) {
    if (!organizations.byKey.has(orgKey)) {
      const known = [...organizations.byKey.keys()];
      report(path, `names organisation "${orgKey}", which is not defined${didYouMean(orgKey, known)}`);
      return;
    }
    const gateway = trigger.kind === "rule" ? trigger.rule.gateway : undefined;
    if (trigger.kind === "rule" && gateway?.orgKey !== undefined && gateway.orgKey !== orgKey) {
      report(
        path,
        `names organisation "${orgKey}", but its rule "${trigger.name}" watches gateway "${gateway.serial}" of organisation "${gateway.orgKey}"; an automation on a rule belongs to the rule's organisation (leave organization out)`,
      );
    }
    return;
  }
  if (written !== undefined || organizations.count <= 1) return;
  if (trigger.kind === "schedule") {
    report(path, "is required when more than one organisation is defined and the trigger is a schedule");
  } else if (trigger.kind === "detector") {
    report(
      path,
      "is required when more than one organisation is defined and the trigger is the offline detector (it watches every gateway)",
    );
  }
}
