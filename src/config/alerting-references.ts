/**
 * Cross-field rules of `rules`, `offline_alerts` and `automations`: what a rule names
 * (gateway, device, register) must exist and be numeric, names and ids unique, an
 * automation's trigger (a rule of the file, or a schedule) and its organisation. What a
 * rule's own fields may hold (hysteresis, message placeholders, cron) is the alerting
 * part's to say (alerting/rule-checks.ts); this asks it and puts the answer at the path.
 * Like rules.ts they run on unchecked data, so every look at a value checks its type
 * first, and a reference that cannot be resolved because of a problem reported
 * elsewhere is left alone rather than reported twice.
 */
import { cronProblem, hysteresisProblem, messageProblem } from "../alerting/rule-checks.ts";
import { didYouMean } from "../lib/problem-wording.ts";
import type { DeviceEntry, FileIndex, GatewayEntry, OrganizationsIndex } from "./file-index.ts";
import { formatPath, type Path } from "./problems.ts";
import { FirstSeen, type IdRegistry, type Report } from "./registries.ts";
import { defaults } from "./schema.ts";
import { derivedId } from "./stable-ids.ts";
import { isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

export function checkAlerting(data: Record<string, unknown>, index: FileIndex, report: Report, ids: IdRegistry): void {
  // The detector claims its id first: its derived id is fixed, so a clash is the rule's to fix.
  const detector = checkOfflineAlerts(data.offline_alerts, ids);
  const rules = checkRules(data.rules, index.gatewaysBySerial, detector, report, ids);
  checkAutomations(data.automations, rules, detector, index.organizations, report, ids);
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
  gateway: GatewayEntry | undefined;
}

function checkRules(
  list: unknown,
  gateways: ReadonlyMap<string, GatewayEntry>,
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
    const hysteresis = hysteresisProblem(rule.condition, rule.hysteresis);
    if (hysteresis !== undefined) report([...path, "hysteresis"], hysteresis);
    const message = messageProblem(rule.message);
    if (message !== undefined) report([...path, "message"], message);
    if (nameIsNew) byName.set(name as string, { path, gateway });
  });
  return byName;
}

/** gateway -> device -> register, each reported only when the one before it resolved. */
function checkRuleTarget(
  rule: Record<string, unknown>,
  path: Path,
  gateways: ReadonlyMap<string, GatewayEntry>,
  report: Report,
): GatewayEntry | undefined {
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

function deviceLabel(device: DeviceEntry): string {
  return device.name === undefined ? `the device with slave_id ${device.slaveId}` : `device "${device.name}"`;
}

function findDevice(ref: unknown, path: Path, gateway: GatewayEntry, report: Report): DeviceEntry | undefined {
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

function checkRuleRegister(ref: unknown, path: Path, device: DeviceEntry, report: Report): void {
  const written = stringOrUndefined(ref);
  if (written === undefined || written === "") return;
  // A register is named by its name, or by its id.
  const name = device.registersByName.has(written) ? written : (device.namesById.get(written.toLowerCase()) ?? written);
  const register = device.registersByName.get(name)?.record;
  if (register === undefined) {
    if (device.registersUncertain) return;
    const excludedAt = device.excluded.get(name);
    report(
      path,
      excludedAt === undefined
        ? `names register "${name}", which ${deviceLabel(device)} does not have${didYouMean(name, [...device.registersByName.keys()])}`
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
  organizations: OrganizationsIndex,
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

function checkAutomationOrganization(
  written: unknown,
  path: Path,
  trigger: ResolvedTrigger,
  organizations: OrganizationsIndex,
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
