/**
 * SunSpec points as fieldhub registers (docs/sunspec.md, "Registers"): which models a
 * device's `sunspec:` config selects, each point's register name, data type, unit and
 * scale-factor register, and the raw value that means "not implemented". The config
 * turns these into a device's registers; the poller places them on the device's map
 * once it has read the model chain (binding.ts).
 */
import type { DataType } from "../register-model.ts";
import type { SunSpecGroup, SunSpecModel, SunSpecPoint } from "./model-types.ts";

/** A device's `sunspec:` setting: `true` for every known model, or the models listed. */
export type SunSpecSelection = true | { models: readonly number[]; repeats?: number };

/** Instances of a repeating group (160's MPPT modules, ...) given registers when the config does not say. */
export const defaultSunSpecRepeats = 4;

/** Where a SunSpec register is on a device: its model, and its offset from the model's id word. */
export interface SunSpecPlace {
  model: number;
  offset: number;
}

export interface SunSpecRegister {
  /** `<model>.<point>`, or `<model>.<group>.<instance>.<point>` in a repeating group (1-based). */
  name: string;
  place: SunSpecPlace;
  dataType: DataType;
  /** For `string`: registers. */
  length?: number;
  unit: string | null;
  description: string;
  /** The register holding this point's scale factor (value = raw x 10^sf). */
  scaleFactorRegister?: string;
  /** A fixed scale exponent the model gives instead of a point. */
  scaleExponent?: number;
  /** The raw value (as decoded) the SunSpec type uses for "not implemented"; absent for float32 (NaN decodes to null) and strings. */
  notImplemented?: number;
}

let known: { models: readonly SunSpecModel[]; byId: ReadonlyMap<number, SunSpecModel> } | null = null;

/**
 * The model tables (models/, about 0.3 MB of source), loaded on first use: a box
 * with no `sunspec:` device never loads them (docs/benchmarks.md, "Footprint").
 */
function knownModels(): NonNullable<typeof known> {
  if (known === null) {
    const { sunSpecModels } = require("./models/index.ts") as typeof import("./models/index.ts");
    known = { models: sunSpecModels, byId: new Map(sunSpecModels.map((model) => [model.id, model])) };
  }
  return known;
}

export function knownSunSpecModel(id: number): SunSpecModel | undefined {
  return knownModels().byId.get(id);
}

export function knownSunSpecModelIds(): readonly number[] {
  return knownModels().models.map((model) => model.id);
}

const dataTypes: Record<string, DataType> = {
  int16: "int16",
  sunssf: "int16",
  uint16: "uint16",
  count: "uint16",
  acc16: "uint16",
  enum16: "uint16",
  bitfield16: "uint16",
  int32: "int32",
  uint32: "uint32",
  acc32: "uint32",
  enum32: "uint32",
  bitfield32: "uint32",
  ipaddr: "uint32",
  int64: "int64",
  uint64: "uint64",
  acc64: "uint64",
  float32: "float32",
  float64: "float64",
  string: "string",
};

/**
 * "Not implemented" by SunSpec type, as the decoder gives the raw value: 0x8000 int16 and
 * sunssf, 0xFFFF uint16 (and its kinds), 0x80000000 int32, 0xFFFFFFFF uint32 (and its
 * kinds), 0 for the accumulators; 64-bit values as the nearest double.
 */
const notImplementedRaw: Record<string, number> = {
  int16: -0x8000,
  sunssf: -0x8000,
  uint16: 0xffff,
  count: 0xffff,
  enum16: 0xffff,
  bitfield16: 0xffff,
  acc16: 0,
  int32: -0x80000000,
  uint32: 0xffffffff,
  enum32: 0xffffffff,
  bitfield32: 0xffffffff,
  ipaddr: 0,
  acc32: 0,
  acc64: 0,
  int64: -(2 ** 63),
  uint64: 2 ** 64,
};

/** The models a selection asks for that fieldhub knows, in the order given (every known model for `true`). */
export function selectedModels(selection: SunSpecSelection): SunSpecModel[] {
  const { models, byId } = knownModels();
  if (selection === true) return [...models];
  return [...new Set(selection.models)].flatMap((id) => byId.get(id) ?? []);
}

/**
 * Where a model's groups lie from its fixed part on, as far as it is known without the
 * device: each group of a fixed count, then the first repeating group of a count the
 * device decides (`instances` null), which ends what is known. Groups nested in groups
 * (the curves of 705-710 and 712) end it too: they are not made registers.
 */
function groupLayout(model: SunSpecModel): { group: SunSpecGroup; start: number; instances: number | null }[] {
  const layout: { group: SunSpecGroup; start: number; instances: number | null }[] = [];
  let start = model.fixedLength;
  for (const group of model.groups) {
    if (group.groups !== undefined && group.groups.length > 0) break;
    const instances = typeof group.count === "number" && group.count > 0 ? group.count : null;
    layout.push({ group, start, instances });
    if (instances === null) break;
    start += group.length * instances;
  }
  return layout;
}

/**
 * How many instances of model `id`'s repeating group (160's modules, 711's controls) a
 * device's model of `length` registers (its length word) holds; null for a model without
 * one, or not known.
 */
export function repeatingGroupInstances(id: number, length: number): number | null {
  const model = knownModels().byId.get(id);
  const repeating = model === undefined ? undefined : groupLayout(model).find((part) => part.instances === null);
  if (repeating === undefined || repeating.group.length === 0) return null;
  // The model's registers run from its id word (offset 0) to offset length + 1.
  return Math.max(0, Math.floor((length + 2 - repeating.start) / repeating.group.length));
}

/**
 * The registers of the selected models: every point of a model's fixed part but its
 * id and length words and pads, and each repeating group's points for instances 1 to
 * `repeats` (a group of fixed count: that many). Groups nested in groups (the curves of
 * 705-710 and 712) are not made registers (docs/sunspec.md).
 */
export function sunSpecRegisters(selection: SunSpecSelection): SunSpecRegister[] {
  const repeats = selection === true ? defaultSunSpecRepeats : (selection.repeats ?? defaultSunSpecRepeats);
  const registers: SunSpecRegister[] = [];
  for (const model of selectedModels(selection)) {
    const fixed = model.points.filter((point) => point.offset >= 2);
    const fixedNames = new Set(fixed.map((point) => point.name));
    for (const point of fixed) {
      const register = pointRegister(model.id, `${model.id}.`, point, point.offset, (sf) =>
        fixedNames.has(sf) ? `${model.id}.${sf}` : undefined,
      );
      if (register !== undefined) registers.push(register);
    }
    for (const { group, start: groupStart, instances: count } of groupLayout(model)) {
      const instances = count ?? repeats;
      for (let instance = 1; instance <= instances; instance++) {
        const start = groupStart + (instance - 1) * group.length;
        const prefix =
          instances === 1 && group.count === 1
            ? `${model.id}.${group.name}.`
            : `${model.id}.${group.name}.${instance}.`;
        const own = new Set(group.points.map((point) => point.name));
        for (const point of group.points) {
          const register = pointRegister(model.id, prefix, point, start + point.offset, (sf) =>
            own.has(sf) ? `${prefix}${sf}` : fixedNames.has(sf) ? `${model.id}.${sf}` : undefined,
          );
          if (register !== undefined) registers.push(register);
        }
      }
    }
  }
  return registers;
}

function pointRegister(
  model: number,
  prefix: string,
  point: SunSpecPoint,
  offset: number,
  scaleFactorName: (sf: string) => string | undefined,
): SunSpecRegister | undefined {
  const dataType = dataTypes[point.type];
  if (dataType === undefined) return undefined;
  const register: SunSpecRegister = {
    name: `${prefix}${point.name}`,
    place: { model, offset },
    dataType,
    unit: point.unit ?? null,
    description: [point.label, point.description].filter((text) => text !== undefined && text !== "").join(": "),
  };
  if (dataType === "string") register.length = point.size;
  if (typeof point.sf === "string") {
    const name = scaleFactorName(point.sf);
    if (name !== undefined) register.scaleFactorRegister = name;
  } else if (typeof point.sf === "number") register.scaleExponent = point.sf;
  const notImplemented = notImplementedRaw[point.type];
  if (notImplemented !== undefined) register.notImplemented = notImplemented;
  return register;
}
