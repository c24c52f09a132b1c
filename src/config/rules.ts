/**
 * Rules that span more than one field: uniqueness, references between sections,
 * device fields that depend on the gateway's bus, templates, and id clashes (what one
 * register needs is in register-rules.ts; alert rules and automations are in
 * alerting-checks.ts). They run on the
 * raw data even when the structure has problems, so one broken element does not
 * hide the problems of the others; every look at a value checks its type first.
 */
import { checkAlerting } from "./alerting-checks.ts";
import { lookupTemplate, resolveRegisters, type TemplateLookup } from "./device-registers.ts";
import { type Finding, formatPath, type Path } from "./problems.ts";
import { FirstSeen, IdRegistry, type Report } from "./registries.ts";
import { checkRegister } from "./register-rules.ts";
import { defaults } from "./schema.ts";
import { deviceKey, derivedId } from "./stable-ids.ts";
import { didYouMean } from "./suggest.ts";
import { templateLabel } from "./templates/index.ts";
import { type BusType, busTypes } from "./types.ts";
import { describeValue, isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

export function ruleFindings(data: unknown): Finding[] {
  const findings: Finding[] = [];
  if (!isRecord(data)) return findings;
  const report: Report = (path, message) => findings.push({ path, message });
  const ids = new IdRegistry(report);

  checkPublicUrl(data.server, report);
  const organizations = checkOrganizations(data.organizations, report, ids);
  checkGateways(data.gateways, organizations, report, ids);
  checkAlerting(data, organizations, report, ids);
  return findings;
}

function checkPublicUrl(server: unknown, report: Report): void {
  if (!isRecord(server) || typeof server.public_url !== "string") return;
  const text = server.public_url;
  const path = ["server", "public_url"];
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:\/\/[^/]/i.test(text)) {
    report(path, `must be an absolute http(s) URL such as http://box.local:8080; got ${describeValue(text)}`);
  } else if (text.endsWith("/")) {
    report(path, `must not end with "/"; got ${describeValue(text)}`);
  } else if (url.search !== "" || url.hash !== "" || text.includes("?") || text.includes("#")) {
    report(path, `must not have a query or fragment; got ${describeValue(text)}`);
  }
}

interface OrganizationInfo {
  customers: Set<string>;
}

interface Organizations {
  byKey: Map<string, OrganizationInfo>;
  /** How many entries the list has, valid or not: decides whether `organization` may be left out. */
  count: number;
  onlyKey: string | undefined;
}

function checkOrganizations(list: unknown, report: Report, ids: IdRegistry): Organizations {
  const byKey = new Map<string, OrganizationInfo>();
  const keys = new FirstSeen("key", report);
  const entries = listOrEmpty(list);
  entries.forEach((org, i) => {
    if (!isRecord(org)) return;
    const path: Path = ["organizations", i];
    const orgKey = stringOrUndefined(org.key);
    const orgKeyIsNew = orgKey !== undefined && keys.isNew(orgKey, [...path, "key"]);
    const info: OrganizationInfo = { customers: new Set() };
    if (orgKey !== undefined && orgKeyIsNew) byKey.set(orgKey, info);
    ids.claim("organization", org.id, path, orgKeyIsNew ? derivedId.organization(orgKey) : undefined);

    const customerKeys = new FirstSeen("key", report);
    listOrEmpty(org.customers).forEach((customer, j) => {
      if (!isRecord(customer)) return;
      const customerPath: Path = [...path, "customers", j];
      const customerKey = stringOrUndefined(customer.key);
      if (customerKey === undefined || !customerKeys.isNew(customerKey, [...customerPath, "key"])) {
        ids.claim("customer", customer.id, customerPath, undefined);
        return;
      }
      info.customers.add(customerKey);
      const derived = orgKeyIsNew ? derivedId.customer(orgKey, customerKey) : undefined;
      ids.claim("customer", customer.id, customerPath, derived);
    });
  });
  const only = entries.length === 1 && isRecord(entries[0]) ? stringOrUndefined(entries[0].key) : undefined;
  return { byKey, count: entries.length, onlyKey: only };
}

function checkGateways(list: unknown, organizations: Organizations, report: Report, ids: IdRegistry): void {
  const serials = new FirstSeen("serial", report);
  listOrEmpty(list).forEach((gateway, i) => {
    if (!isRecord(gateway)) return;
    const path: Path = ["gateways", i];
    const serial = stringOrUndefined(gateway.serial);
    const serialIsNew = serial !== undefined && serials.isNew(serial, [...path, "serial"]);
    ids.claim("gateway", gateway.id, path, serialIsNew ? derivedId.gateway(serial) : undefined);
    checkGatewayReferences(gateway, path, organizations, report);

    const bus = isRecord(gateway.bus) ? gateway.bus.type : undefined;
    const busType = busTypes.find((type) => type === bus);
    checkDevices(gateway.devices, path, busType, serialIsNew ? serial : undefined, report, ids);
  });
}

function checkGatewayReferences(
  gateway: Record<string, unknown>,
  path: Path,
  organizations: Organizations,
  report: Report,
): void {
  let orgKey = stringOrUndefined(gateway.organization);
  if (orgKey !== undefined && !organizations.byKey.has(orgKey)) {
    const known = [...organizations.byKey.keys()];
    report(
      [...path, "organization"],
      `names organisation "${orgKey}", which is not defined${didYouMean(orgKey, known)}`,
    );
    return;
  }
  if (gateway.organization === undefined) {
    if (organizations.count > 1) {
      report([...path, "organization"], "is required when more than one organisation is defined");
      return;
    }
    orgKey = organizations.onlyKey;
  }
  const organization = orgKey === undefined ? undefined : organizations.byKey.get(orgKey);
  const customer = stringOrUndefined(gateway.customer);
  if (organization === undefined || customer === undefined || organization.customers.has(customer)) return;
  const suggestion = didYouMean(customer, [...organization.customers]);
  report(
    [...path, "customer"],
    `names customer "${customer}", which organisation "${orgKey}" does not have${suggestion}`,
  );
}

function checkDevices(
  list: unknown,
  gatewayPath: Path,
  busType: BusType | undefined,
  serial: string | undefined,
  report: Report,
  ids: IdRegistry,
): void {
  const names = new FirstSeen("name", report);
  const keys = new Map<string, Path>();
  listOrEmpty(list).forEach((device, j) => {
    if (!isRecord(device)) return;
    const path: Path = [...gatewayPath, "devices", j];
    const name = stringOrUndefined(device.name);
    const nameIsNew = name === undefined || names.isNew(name, [...path, "name"]);
    checkDeviceAgainstBus(device, path, busType, report);

    // The natural key decides the device's and its registers' derived ids.
    let key = nameIsNew ? naturalKey(device, busType) : undefined;
    if (key !== undefined) {
      const first = keys.get(key);
      if (first !== undefined) {
        report(path, `has the same address (${key}) as ${formatPath(first)} and no name; give one of them a name`);
        key = undefined;
      } else {
        keys.set(key, path);
      }
    }
    const usable = serial !== undefined && key !== undefined;
    ids.claim("device", device.id, path, usable ? derivedId.device(serial, key as string) : undefined);
    checkRegisters(device, path, usable ? { serial, key: key as string } : undefined, report, ids);
  });
}

/** A device's natural key (stable-ids.ts), or undefined while the fields it needs are not valid. */
export function naturalKey(device: Record<string, unknown>, busType: BusType | undefined): string | undefined {
  const slaveId = device.slave_id;
  if (busType === undefined || typeof slaveId !== "number" || !Number.isInteger(slaveId)) return undefined;
  const name = stringOrUndefined(device.name) ?? null;
  if (busType !== "tcp") return deviceKey(name, null, null, slaveId);
  const host = stringOrUndefined(device.host);
  if (host === undefined) return undefined;
  const port = typeof device.port === "number" ? device.port : defaults.devicePort;
  return deviceKey(name, host, port, slaveId);
}

/** TCP devices are addressed by host:port + unit id; on the RTU buses only the unit id. */
function checkDeviceAgainstBus(
  device: Record<string, unknown>,
  path: Path,
  busType: BusType | undefined,
  report: Report,
): void {
  const slaveId = device.slave_id;
  const [low, high] = busType === undefined || busType === "tcp" ? [0, 255] : [1, 247];
  if (typeof slaveId === "number" && Number.isInteger(slaveId) && (slaveId < low || slaveId > high)) {
    const onBus = busType === undefined || busType === "tcp" ? "" : ` when bus.type is ${busType}`;
    report([...path, "slave_id"], `must be between ${low} and ${high}${onBus}; got ${slaveId}`);
  }
  if (busType === "tcp") {
    if (device.host === undefined) report([...path, "host"], "is required when bus.type is tcp");
  } else if (busType !== undefined) {
    for (const field of ["host", "port"]) {
      if (device[field] === undefined) continue;
      report([...path, field], `is only allowed when bus.type is tcp (this gateway's bus is ${busType})`);
    }
  }
}

function checkRegisters(
  device: Record<string, unknown>,
  devicePath: Path,
  deviceIds: { serial: string; key: string } | undefined,
  report: Report,
  ids: IdRegistry,
): void {
  const lookup = lookupTemplate(device.template);
  if (lookup.kind === "unknown") report([...devicePath, ...lookup.path], lookup.message);
  const template = lookup.kind === "found" ? lookup.template : undefined;
  const excluded = checkExclude(device.exclude, devicePath, lookup, report);
  const resolved = resolveRegisters(device.registers, template, new Set(excluded.keys()), devicePath);

  const written = device.max_registers_per_request;
  const writtenIsValid = typeof written === "number" && Number.isInteger(written) && written >= 1 && written <= 125;
  const maxRegistersPerRequest = writtenIsValid
    ? { value: written, written: true }
    : { value: template?.maxRegistersPerRequest ?? defaults.maxRegistersPerRequest, written: false };
  const context = { devicePath, template, maxRegistersPerRequest, report };

  for (const entry of resolved.entries) {
    if (entry.role === "own" || entry.role === "override") continue;
    if (entry.role === "duplicate") {
      report(
        [...entry.path, "name"],
        `duplicate name "${entry.name}" (also at ${formatPath([...(entry.firstPath ?? []), "name"])})`,
      );
    } else if (entry.role === "excluded") {
      const where = formatPath(excluded.get(entry.name as string) ?? []);
      report(
        [...entry.path, "name"],
        `overrides template register "${entry.name}", which ${where} leaves out; remove one or the other`,
      );
    }
    ids.claim("register", entry.record.id, entry.path, undefined);
    // Not polled, but its own fields still get checked (nothing is required of it).
    if (entry.role !== "excluded")
      checkRegister({
        ...context,
        register: { name: entry.name ?? "", record: entry.record, entry },
        templateUnknown: true,
      });
  }

  for (const register of resolved.registers) {
    const derived =
      deviceIds === undefined ? undefined : derivedId.register(deviceIds.serial, deviceIds.key, register.name);
    const templateRegister = register.entry === undefined ? register.name : undefined;
    ids.claim(
      "register",
      register.entry?.record.id,
      register.entry?.path ?? [...devicePath, "template"],
      derived,
      templateRegister,
    );
    // A template that is unknown (or unreadable) leaves open which entries are overrides.
    checkRegister({ ...context, register, templateUnknown: lookup.kind === "unknown" || lookup.kind === "unreadable" });
  }
}

/** The names `exclude` drops, each with where it is written. */
function checkExclude(list: unknown, devicePath: Path, lookup: TemplateLookup, report: Report): Map<string, Path> {
  const excluded = new Map<string, Path>();
  if (list === undefined) return excluded;
  if (lookup.kind === "none") {
    report([...devicePath, "exclude"], "is only allowed with template (it names template registers to leave out)");
    return excluded;
  }
  const names = new FirstSeen("name", report);
  listOrEmpty(list).forEach((name, i) => {
    const path: Path = [...devicePath, "exclude", i];
    if (typeof name !== "string" || name === "" || !names.isNew(name, path)) return;
    if (lookup.kind === "found" && !lookup.template.registers.some((register) => register.name === name)) {
      const known = lookup.template.registers.map((register) => register.name);
      report(
        path,
        `names "${name}", which is not a register of template ${templateLabel(lookup.template)}${didYouMean(name, known)}`,
      );
      return;
    }
    excluded.set(name, path);
  });
  return excluded;
}
