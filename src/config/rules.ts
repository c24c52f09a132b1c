/**
 * Rules that span more than one field: uniqueness, references between sections,
 * device fields that depend on the gateway's bus, templates, and id clashes (what one
 * register needs is asked of the Modbus layer by register-checks.ts; alert rules and
 * automations are in alerting-references.ts). They run on the file index
 * (file-index.ts), built even when the structure has problems, so one broken element
 * does not hide the problems of the others; every look at a value checks its type first.
 */
import { describeValue, didYouMean } from "../lib/problem-wording.ts";
import { knownSunSpecModel, knownSunSpecModelIds } from "../modbus/sunspec/points.ts";
import { checkAlerting } from "./alerting-references.ts";
import type { TemplateLookup } from "./device-registers.ts";
import {
  type DeviceEntry,
  type FileIndex,
  type GatewayEntry,
  indexFile,
  type OrganizationsIndex,
} from "./file-index.ts";
import { checkModbusServers } from "./modbus-server-checks.ts";
import { checkMqtt } from "./mqtt-checks.ts";
import { type Finding, formatPath, type Path } from "./problems.ts";
import { checkRegister, checkScaleFactorRegister } from "./register-checks.ts";
import { FirstSeen, IdRegistry, type Report } from "./registries.ts";
import { defaults } from "./schema.ts";
import { derivedId } from "./stable-ids.ts";
import { templateLabel } from "./templates/index.ts";
import type { BusType } from "./types.ts";
import { isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

/** The cross-field findings, and the file index they were made on (normalisation reads it too). */
export function ruleFindings(data: unknown): { findings: Finding[]; index: FileIndex | undefined } {
  const findings: Finding[] = [];
  if (!isRecord(data)) return { findings, index: undefined };
  const report: Report = (path, message) => findings.push({ path, message });
  const ids = new IdRegistry(report);
  const index = indexFile(data);

  checkPublicUrl(data.server, report);
  checkUplinkUrl(data.uplink, report);
  checkMqtt(data.mqtt, report);
  checkOrganizations(data.organizations, report, ids);
  checkGateways(index, report, ids);
  checkModbusServers(data, index, report);
  checkAlerting(data, index, report, ids);
  return { findings, index };
}

function checkPublicUrl(server: unknown, report: Report): void {
  if (!isRecord(server) || typeof server.public_url !== "string") return;
  checkBaseUrl(server.public_url, ["server", "public_url"], "http://box.local:8080", report);
}

/** The central a site forwards to (docs/fleet.md): a base URL like server.public_url. */
function checkUplinkUrl(uplink: unknown, report: Report): void {
  if (!isRecord(uplink) || typeof uplink.url !== "string") return;
  checkBaseUrl(uplink.url, ["uplink", "url"], "https://central.example.com", report);
}

function checkBaseUrl(text: string, path: string[], example: string, report: Report): void {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:\/\/[^/]/i.test(text)) {
    report(path, `must be an absolute http(s) URL such as ${example}; got ${describeValue(text)}`);
  } else if (text.endsWith("/")) {
    report(path, `must not end with "/"; got ${describeValue(text)}`);
  } else if (url.search !== "" || url.hash !== "" || text.includes("?") || text.includes("#")) {
    report(path, `must not have a query or fragment; got ${describeValue(text)}`);
  }
}

/** Keys unique (customer keys within their organisation) and ids claimed. */
function checkOrganizations(list: unknown, report: Report, ids: IdRegistry): void {
  const keys = new FirstSeen("key", report);
  listOrEmpty(list).forEach((org, i) => {
    if (!isRecord(org)) return;
    const path: Path = ["organizations", i];
    const orgKey = stringOrUndefined(org.key);
    const orgKeyIsNew = orgKey !== undefined && keys.isNew(orgKey, [...path, "key"]);
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
      const derived = orgKeyIsNew ? derivedId.customer(orgKey, customerKey) : undefined;
      ids.claim("customer", customer.id, customerPath, derived);
    });
  });
}

function checkGateways(index: FileIndex, report: Report, ids: IdRegistry): void {
  const serials = new FirstSeen("serial", report);
  for (const gateway of index.gateways) {
    const { path, serial } = gateway;
    const serialIsNew = serial !== undefined && serials.isNew(serial, [...path, "serial"]);
    ids.claim("gateway", gateway.record.id, path, serialIsNew ? derivedId.gateway(serial) : undefined);
    checkGatewayReferences(gateway, index.organizations, report);
    checkDevices(gateway, serialIsNew ? serial : undefined, report, ids);
  }
}

function checkGatewayReferences(entry: GatewayEntry, organizations: OrganizationsIndex, report: Report): void {
  const { record: gateway, path } = entry;
  const orgKey = stringOrUndefined(gateway.organization);
  if (orgKey !== undefined && !organizations.byKey.has(orgKey)) {
    const known = [...organizations.byKey.keys()];
    report(
      [...path, "organization"],
      `names organisation "${orgKey}", which is not defined${didYouMean(orgKey, known)}`,
    );
    return;
  }
  if (gateway.organization === undefined && organizations.count > 1) {
    report([...path, "organization"], "is required when more than one organisation is defined");
    return;
  }
  const organization = entry.orgKey === undefined ? undefined : organizations.byKey.get(entry.orgKey);
  const customer = stringOrUndefined(gateway.customer);
  if (organization === undefined || customer === undefined || organization.customers.has(customer)) return;
  const suggestion = didYouMean(customer, [...organization.customers]);
  report(
    [...path, "customer"],
    `names customer "${customer}", which organisation "${entry.orgKey}" does not have${suggestion}`,
  );
}

function checkDevices(gateway: GatewayEntry, serial: string | undefined, report: Report, ids: IdRegistry): void {
  const names = new FirstSeen("name", report);
  const keys = new Map<string, Path>();
  for (const device of gateway.devices) {
    const { path, name } = device;
    const nameIsNew = name === undefined || names.isNew(name, [...path, "name"]);
    checkDeviceAgainstBus(device.record, path, gateway.busType, report);

    // The natural key decides the device's and its registers' derived ids.
    let key = nameIsNew ? device.naturalKey : undefined;
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
    ids.claim("device", device.record.id, path, usable ? derivedId.device(serial, key as string) : undefined);
    checkRegisters(device, usable ? { serial, key: key as string } : undefined, report, ids);
  }
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
  device: DeviceEntry,
  deviceIds: { serial: string; key: string } | undefined,
  report: Report,
  ids: IdRegistry,
): void {
  const { path: devicePath, template: lookup } = device;
  if (lookup.kind === "unknown") report([...devicePath, ...lookup.path], lookup.message);
  const template = lookup.kind === "found" ? lookup.template : undefined;
  checkExclude(device.record.exclude, devicePath, lookup, report);

  const written = device.record.max_registers_per_request;
  const writtenIsValid = typeof written === "number" && Number.isInteger(written) && written >= 1 && written <= 125;
  const maxRegistersPerRequest = writtenIsValid
    ? { value: written, written: true }
    : { value: template?.maxRegistersPerRequest ?? defaults.maxRegistersPerRequest, written: false };
  const context = { devicePath, template, maxRegistersPerRequest, report };

  for (const entry of device.resolved.entries) {
    if (entry.role === "own" || entry.role === "override") continue;
    if (entry.role === "duplicate") {
      report(
        [...entry.path, "name"],
        `duplicate name "${entry.name}" (also at ${formatPath([...(entry.firstPath ?? []), "name"])})`,
      );
    } else if (entry.role === "excluded") {
      const where = formatPath(device.excluded.get(entry.name as string) ?? []);
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

  for (const register of device.resolved.registers) {
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
    checkRegister({ ...context, register, templateUnknown: device.registersUncertain });
    if (!device.registersUncertain) checkScaleFactorRegister(register, device.registersByName, devicePath, report);
  }
  checkSunSpec(device.record.sunspec, devicePath, report);
}

/** The SunSpec models a device asks for: each one fieldhub knows (docs/sunspec.md), none twice. */
function checkSunSpec(sunspec: unknown, devicePath: Path, report: Report): void {
  if (!isRecord(sunspec)) return;
  const seen = new Map<number, number>();
  listOrEmpty(sunspec.models).forEach((id, i) => {
    if (typeof id !== "number" || !Number.isInteger(id)) return;
    const path: Path = [...devicePath, "sunspec", "models", i];
    const first = seen.get(id);
    if (first !== undefined) report(path, `lists model ${id} again (also at models[${first}])`);
    else if (knownSunSpecModel(id) === undefined) {
      report(path, `is not a SunSpec model fieldhub knows: ${id}; it knows ${knownSunSpecModelIds().join(", ")}`);
    }
    if (first === undefined) seen.set(id, i);
  });
}

/** What is wrong in `exclude` (the index keeps the names it may leave out). */
function checkExclude(list: unknown, devicePath: Path, lookup: TemplateLookup, report: Report): void {
  if (list === undefined) return;
  if (lookup.kind === "none") {
    report([...devicePath, "exclude"], "is only allowed with template (it names template registers to leave out)");
    return;
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
    }
  });
}
