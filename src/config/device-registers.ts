/**
 * A device's registers as it will be polled: its template's registers (in template order,
 * less the excluded ones, with the file's overrides applied), then the registers the file
 * adds. rules.ts runs this on unchecked data to report problems; normalise.ts runs it on a
 * checked file. Both see the same list, so what is checked is what is polled.
 */

import { didYouMean } from "../lib/problem-wording.ts";
import type { SunSpecRegister } from "../modbus/sunspec/points.ts";
import type { Path } from "./problems.ts";
import {
  type DeviceTemplate,
  deviceTemplates,
  findTemplate,
  type TemplateRegister,
  templateLabel,
} from "./templates/index.ts";
import { isRecord, listOrEmpty, stringOrUndefined } from "./values.ts";

/** A register's fields in the file's own words; values are unchecked until rules.ts has run. */
export type RegisterRecord = Record<string, unknown>;

/** Every field a register entry may have (schema.ts registerSchema). */
const registerFields = [
  "name",
  "id",
  "address",
  "function_code",
  "data_type",
  "byte_order",
  "bit",
  "length",
  "unit",
  "scale_factor",
  "scale_factor_register",
  "not_implemented",
  "writable",
  "min",
  "max",
  "write_function",
  "description",
  "poll_interval_ms",
  "deadband",
] as const;

/** A template register written as the file would write it. */
export function templateRegisterRecord(template: DeviceTemplate, register: TemplateRegister): RegisterRecord {
  const record: RegisterRecord = {
    name: register.name,
    address: register.address,
    function_code: register.functionCode,
    data_type: register.dataType,
    byte_order: register.byteOrder ?? template.byteOrder,
    writable: register.writable ?? false,
    description: register.description,
  };
  if (register.min !== undefined) record.min = register.min;
  if (register.max !== undefined) record.max = register.max;
  if (register.bit !== undefined) record.bit = register.bit;
  if (register.length !== undefined) record.length = register.length;
  if (register.unit !== null) record.unit = register.unit;
  if (register.scaleFactor !== null) record.scale_factor = register.scaleFactor;
  if (register.scaleFactorRegister !== undefined) record.scale_factor_register = register.scaleFactorRegister;
  if (register.notImplemented !== undefined) record.not_implemented = register.notImplemented;
  return record;
}

/** A SunSpec point written as the file would write it; its address is its offset in its model (docs/sunspec.md). */
function sunSpecRegisterRecord(register: SunSpecRegister): RegisterRecord {
  const record: RegisterRecord = {
    name: register.name,
    address: register.place.offset,
    function_code: 3,
    data_type: register.dataType,
    byte_order: "ABCD",
    writable: false,
    description: register.description,
  };
  if (register.length !== undefined) record.length = register.length;
  if (register.unit !== null) record.unit = register.unit;
  if (register.scaleFactorRegister !== undefined) record.scale_factor_register = register.scaleFactorRegister;
  if (register.scaleExponent !== undefined) record.scale_factor = 10 ** register.scaleExponent;
  if (register.notImplemented !== undefined) record.not_implemented = register.notImplemented;
  return record;
}

/**
 * The fields an override writes replace the template's; the others are kept. `bit` and
 * `length` belong to the template's data type: an override that changes `data_type` or
 * `function_code` does not inherit them (it writes them again if the new type needs them).
 */
export function applyOverride(base: RegisterRecord, override: RegisterRecord): RegisterRecord {
  const merged: RegisterRecord = { ...base };
  const changes = (field: string) => Object.hasOwn(override, field) && override[field] !== base[field];
  if (changes("data_type") || changes("function_code")) {
    delete merged.bit;
    delete merged.length;
  }
  // Field by field (never Object.assign): a `__proto__` key in the file must stay inert.
  for (const field of registerFields) {
    if (Object.hasOwn(override, field) && override[field] !== undefined) merged[field] = override[field];
  }
  return merged;
}

export type TemplateLookup =
  | { kind: "none" }
  | { kind: "found"; template: DeviceTemplate }
  /** Named, but not in the library: `path` (under the device) and `message` say why. */
  | { kind: "unknown"; path: Path; message: string }
  /** Brand or model is not text: the structure check reports it. */
  | { kind: "unreadable" };

export function lookupTemplate(ref: unknown): TemplateLookup {
  if (ref === undefined) return { kind: "none" };
  if (!isRecord(ref)) return { kind: "unreadable" };
  const brand = stringOrUndefined(ref.brand);
  const model = stringOrUndefined(ref.model);
  if (brand === undefined || model === undefined || brand === "" || model === "") return { kind: "unreadable" };
  const template = findTemplate(brand, model);
  if (template !== undefined) return { kind: "found", template };

  const library = deviceTemplates().map(templateLabel).join(", ");
  const brands = [...new Set(deviceTemplates().map((t) => t.brand))];
  if (!brands.includes(brand)) {
    let suggestion = didYouMean(brand, brands);
    if (suggestion === "") {
      // The brand is off but the model gives it away: `{ brand: SMA, model: SDM630 }`.
      const byModel = deviceTemplates().find((t) => didYouMean(model, [t.model]) !== "");
      if (byModel !== undefined) suggestion = ` (did you mean ${templateLabel(byModel)}?)`;
    }
    return {
      kind: "unknown",
      path: ["template", "brand"],
      message: `no template for brand "${brand}"${suggestion}; the library has: ${library}`,
    };
  }
  const models = deviceTemplates()
    .filter((t) => t.brand === brand)
    .map((t) => t.model);
  return {
    kind: "unknown",
    path: ["template", "model"],
    message: `brand "${brand}" has no template "${model}"${didYouMean(model, models)}; its models: ${models.join(", ")} (the library has: ${library})`,
  };
}

export interface RegisterEntry {
  /** Where the entry is in the file. */
  path: Path;
  record: RegisterRecord;
  name: string | undefined;
  /**
   * own: a register the template does not have (or no template); override: changes the
   * template register of its name; excluded: names a register `exclude` drops;
   * duplicate: a name an earlier entry has; unnamed: no usable name.
   */
  role: "own" | "override" | "excluded" | "duplicate" | "unnamed";
  /** For duplicate: where the name was first used. */
  firstPath?: Path;
}

export interface ResolvedRegister {
  name: string;
  /** The fields in effect: the template register's, with the ones the file wrote on top. */
  record: RegisterRecord;
  /** The file's entry for it (own register or override); absent for a template register the file leaves alone. */
  entry?: RegisterEntry;
  /** The template register it comes from. */
  fromTemplate?: TemplateRegister;
  /** The SunSpec point it is (the device's `sunspec:`). */
  fromSunSpec?: SunSpecRegister;
}

export interface ResolvedDevice {
  entries: RegisterEntry[];
  /** In polling order: the template's registers, then the file's own. */
  registers: ResolvedRegister[];
}

export function resolveRegisters(
  list: unknown,
  template: DeviceTemplate | undefined,
  exclude: ReadonlySet<string>,
  devicePath: Path,
  sunspec: readonly SunSpecRegister[] = [],
): ResolvedDevice {
  const templateNames = new Set(template?.registers.map((register) => register.name));
  const sunSpecNames = new Set(sunspec.map((register) => register.name));
  const firstByName = new Map<string, Path>();
  const entries: RegisterEntry[] = [];
  listOrEmpty(list).forEach((item, k) => {
    if (!isRecord(item)) return;
    const path: Path = [...devicePath, "registers", k];
    const name = stringOrUndefined(item.name);
    const entry: RegisterEntry = { path, record: item, name, role: "own" };
    if (name === undefined || name === "") entry.role = "unnamed";
    else if (firstByName.has(name)) {
      entry.role = "duplicate";
      entry.firstPath = firstByName.get(name);
    } else {
      firstByName.set(name, path);
      if (exclude.has(name) && templateNames.has(name)) entry.role = "excluded";
      else if (templateNames.has(name) || sunSpecNames.has(name)) entry.role = "override";
    }
    entries.push(entry);
  });

  const overrides = new Map(entries.filter((e) => e.role === "override").map((e) => [e.name as string, e]));
  const registers: ResolvedRegister[] = [];
  for (const register of template?.registers ?? []) {
    if (exclude.has(register.name) || template === undefined) continue;
    const base = templateRegisterRecord(template, register);
    const entry = overrides.get(register.name);
    registers.push(
      entry === undefined
        ? { name: register.name, record: base, fromTemplate: register }
        : { name: register.name, record: applyOverride(base, entry.record), entry, fromTemplate: register },
    );
  }
  for (const register of sunspec) {
    if (templateNames.has(register.name)) continue;
    const base = sunSpecRegisterRecord(register);
    const entry = overrides.get(register.name);
    registers.push(
      entry === undefined
        ? { name: register.name, record: base, fromSunSpec: register }
        : { name: register.name, record: applyOverride(base, entry.record), entry, fromSunSpec: register },
    );
  }
  for (const entry of entries) {
    if (entry.role === "own") registers.push({ name: entry.name as string, record: entry.record, entry });
  }
  return { entries, registers };
}
