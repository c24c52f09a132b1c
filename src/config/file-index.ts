/**
 * The config file indexed once, after the structure check: organisations (with the
 * only-organisation default), gateways by serial, and each device with its registers
 * resolved as they will be polled. Every cross-field check reads it and reports what
 * is wrong; normalisation reads it for a checked file. It reports nothing itself and,
 * like the checks, runs on unchecked data: every look at a value checks its type first.
 */

import { type SunSpecSelection, sunSpecRegisters } from "../modbus/sunspec/points.ts";
import {
  lookupTemplate,
  type ResolvedDevice,
  type ResolvedRegister,
  resolveRegisters,
  type TemplateLookup,
} from "./device-registers.ts";
import type { Path } from "./problems.ts";
import { defaults } from "./schema.ts";
import { derivedId, deviceKey, idOr } from "./stable-ids.ts";
import { type BusType, busTypes } from "./types.ts";
import { isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

export interface FileIndex {
  organizations: OrganizationsIndex;
  /** Every gateway entry that is a mapping, in file order. */
  gateways: GatewayEntry[];
  /** The first gateway of each serial: the one a rule names (a repeat is reported). */
  gatewaysBySerial: ReadonlyMap<string, GatewayEntry>;
}

export interface OrganizationsIndex {
  /** The first organisation of each key, with its customers' keys. */
  byKey: ReadonlyMap<string, { customers: ReadonlySet<string> }>;
  /** How many entries the list has, valid or not: decides whether `organization` may be left out. */
  count: number;
  /** The key of the only organisation, when there is exactly one. */
  onlyKey: string | undefined;
}

export interface GatewayEntry {
  path: Path;
  record: Record<string, unknown>;
  serial: string | undefined;
  busType: BusType | undefined;
  /** Its organisation: the written one when it is defined, else the only one when none is written. */
  orgKey: string | undefined;
  devices: DeviceEntry[];
}

export interface DeviceEntry {
  path: Path;
  record: Record<string, unknown>;
  name: string | undefined;
  slaveId: number | undefined;
  /** The unit id the gateway's Modbus TCP server answers for it: `server_unit_id`, else `slave_id`. */
  serverUnitId: number | undefined;
  /** Its natural key (stable-ids.ts), while the fields it needs are valid. */
  naturalKey: string | undefined;
  template: TemplateLookup;
  /** Names `exclude` leaves out that may be left out, each with where it is written. */
  excluded: ReadonlyMap<string, Path>;
  resolved: ResolvedDevice;
  /** The polled registers by name (the first of a name). */
  registersByName: ReadonlyMap<string, ResolvedRegister>;
  /** The same registers' names by id (written, or derived as the inventory derives it). */
  namesById: ReadonlyMap<string, string>;
  /** The template is unknown or unreadable: which registers exist cannot be told. */
  registersUncertain: boolean;
}

export function indexFile(data: Record<string, unknown>): FileIndex {
  const organizations = indexOrganizations(data.organizations);
  const gateways = listOrEmpty(data.gateways).flatMap((gateway, i) =>
    isRecord(gateway) ? [indexGateway(gateway, ["gateways", i], organizations)] : [],
  );
  const gatewaysBySerial = new Map<string, GatewayEntry>();
  for (const gateway of gateways) {
    if (gateway.serial !== undefined && !gatewaysBySerial.has(gateway.serial))
      gatewaysBySerial.set(gateway.serial, gateway);
  }
  return { organizations, gateways, gatewaysBySerial };
}

function indexOrganizations(list: unknown): OrganizationsIndex {
  const byKey = new Map<string, { customers: Set<string> }>();
  const entries = listOrEmpty(list);
  for (const org of entries) {
    const key = isRecord(org) ? stringOrUndefined(org.key) : undefined;
    if (!isRecord(org) || key === undefined || byKey.has(key)) continue;
    const customers = listOrEmpty(org.customers).flatMap((customer) => {
      const customerKey = isRecord(customer) ? stringOrUndefined(customer.key) : undefined;
      return customerKey === undefined ? [] : [customerKey];
    });
    byKey.set(key, { customers: new Set(customers) });
  }
  const only = entries.length === 1 && isRecord(entries[0]) ? stringOrUndefined(entries[0].key) : undefined;
  return { byKey, count: entries.length, onlyKey: only };
}

function indexGateway(gateway: Record<string, unknown>, path: Path, organizations: OrganizationsIndex): GatewayEntry {
  const serial = stringOrUndefined(gateway.serial);
  const written = stringOrUndefined(gateway.organization);
  let orgKey: string | undefined;
  if (written !== undefined) orgKey = organizations.byKey.has(written) ? written : undefined;
  else if (gateway.organization === undefined && organizations.count === 1) orgKey = organizations.onlyKey;
  const bus = isRecord(gateway.bus) ? gateway.bus.type : undefined;
  const busType = busTypes.find((type) => type === bus);
  const devices = listOrEmpty(gateway.devices).flatMap((device, j) =>
    isRecord(device) ? [indexDevice(device, [...path, "devices", j], serial, busType)] : [],
  );
  return { path, record: gateway, serial, busType, orgKey, devices };
}

function indexDevice(
  device: Record<string, unknown>,
  path: Path,
  serial: string | undefined,
  busType: BusType | undefined,
): DeviceEntry {
  const template = lookupTemplate(device.template);
  const excluded = excludedNames(device.exclude, path, template);
  const found = template.kind === "found" ? template.template : undefined;
  const sunspec = sunSpecSelectionOf(device.sunspec);
  const resolved = resolveRegisters(
    device.registers,
    found,
    new Set(excluded.keys()),
    path,
    sunspec === undefined ? [] : sunSpecRegisters(sunspec),
  );
  const registersByName = new Map<string, ResolvedRegister>();
  for (const register of resolved.registers) {
    if (!registersByName.has(register.name)) registersByName.set(register.name, register);
  }
  const key = naturalKey(device, busType);
  const namesById = new Map<string, string>();
  for (const [name, register] of registersByName) {
    const written = stringOrUndefined(register.record.id);
    if (written === undefined && (serial === undefined || key === undefined)) continue;
    namesById.set(
      idOr(written, () => derivedId.register(serial as string, key as string, name)),
      name,
    );
  }
  return {
    path,
    record: device,
    name: stringOrUndefined(device.name),
    slaveId: typeof device.slave_id === "number" ? device.slave_id : undefined,
    serverUnitId: integerOrUndefined(device.server_unit_id ?? device.slave_id),
    naturalKey: key,
    template,
    excluded,
    resolved,
    registersByName,
    namesById,
    registersUncertain: template.kind === "unknown" || template.kind === "unreadable",
  };
}

/** The device's `sunspec:` as far as it reads (rules.ts reports what does not): undefined for none or false. */
function sunSpecSelectionOf(value: unknown): SunSpecSelection | undefined {
  if (value === true) return true;
  if (!isRecord(value)) return undefined;
  const models = listOrEmpty(value.models).filter((id): id is number => typeof id === "number" && Number.isInteger(id));
  const repeats = integerOrUndefined(value.repeats);
  return repeats !== undefined && repeats >= 1 && repeats <= 64 ? { models, repeats } : { models };
}

function integerOrUndefined(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

/** What `exclude` may leave out: text naming a register of the template (when it is known). */
function excludedNames(list: unknown, devicePath: Path, template: TemplateLookup): Map<string, Path> {
  const excluded = new Map<string, Path>();
  if (template.kind === "none") return excluded;
  listOrEmpty(list).forEach((name, i) => {
    if (typeof name !== "string" || name === "" || excluded.has(name)) return;
    if (template.kind === "found" && !template.template.registers.some((register) => register.name === name)) return;
    excluded.set(name, [...devicePath, "exclude", i]);
  });
  return excluded;
}

/** A device's natural key (stable-ids.ts), or undefined while the fields it needs are not valid. */
function naturalKey(device: Record<string, unknown>, busType: BusType | undefined): string | undefined {
  const slaveId = device.slave_id;
  if (busType === undefined || typeof slaveId !== "number" || !Number.isInteger(slaveId)) return undefined;
  const name = stringOrUndefined(device.name) ?? null;
  if (busType !== "tcp") return deviceKey(name, null, null, slaveId);
  const host = stringOrUndefined(device.host);
  if (host === undefined) return undefined;
  const port = typeof device.port === "number" ? device.port : defaults.devicePort;
  return deviceKey(name, host, port, slaveId);
}
