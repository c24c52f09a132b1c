/**
 * What a unit says through SunSpec (docs/discover.md): its model chain, found by
 * src/modbus/sunspec/chain.ts (the walk the poller makes for a device's `sunspec:`),
 * each model's name from fieldhub's model tables, and the common model's text
 * (model 1: Mn, Md, Vr, SN).
 */
import { findSunSpecChain, type SunSpecChainEnd } from "../sunspec/chain.ts";
import { knownSunSpecModel, repeatingGroupInstances } from "../sunspec/points.ts";
import type { RegisterReader } from "./scan.ts";

export interface SunSpecFound {
  /** The address of the "SunS" marker. */
  base: number;
  /** Each model of the chain; `name` null for a model fieldhub has no table of. */
  models: { id: number; name: string | null; address: number; length: number }[];
  /** How the walk ended: "end_marker", or where it was cut short (the models before the cut are listed). */
  end: SunSpecChainEnd;
  /** The model ids a device entry can poll (`sunspec: { models: [...] }`): the known ones. */
  pollable: number[];
  /**
   * The `repeats` a device entry gives its models (docs/sunspec.md, "Registers"): the
   * most instances of a repeating group (160's modules, ...) a model of the device holds,
   * from its length; null when no model it has repeats a group.
   */
  repeats: number | null;
  common: { manufacturer: string | null; model: string | null; version: string | null; serial: string | null } | null;
}

const COMMON_MODEL = 1;
/** The common model's text points (SunSpec model 1). */
const commonText = { manufacturer: "Mn", model: "Md", version: "Vr", serial: "SN" } as const;

/** The chain and the common model's text; the search for the marker ends at a base where the unit stays silent. */
export async function readSunSpec(read: RegisterReader, lastReadSilent: () => boolean): Promise<SunSpecFound | null> {
  const chain = await findSunSpecChain(read, { stopLooking: lastReadSilent });
  if (chain === null) return null;
  const models = chain.models.map((model) => ({ ...model, name: knownSunSpecModel(model.id)?.label ?? null }));
  const common = chain.models.find((model) => model.id === COMMON_MODEL);
  const pollable = [...new Set(models.filter((model) => model.name !== null).map((model) => model.id))];
  return {
    base: chain.base,
    models,
    end: chain.end,
    pollable,
    repeats: repeatsOf(pollable.map((id) => models.find((model) => model.id === id)!)),
    common: common === undefined ? null : await readCommon(read, common.address, common.length),
  };
}

/** The most instances of a repeating group among `models` (the first of each id, as the poller places them), at least 1. */
function repeatsOf(models: readonly { id: number; length: number }[]): number | null {
  const counts = models.flatMap((model) => repeatingGroupInstances(model.id, model.length) ?? []);
  return counts.length === 0 ? null : Math.max(1, ...counts);
}

/** Mn, Md, Vr and SN of the common model at `address`, from one read; null where the model is too short or the read fails. */
async function readCommon(read: RegisterReader, address: number, length: number): Promise<SunSpecFound["common"]> {
  const points = knownSunSpecModel(COMMON_MODEL)?.points ?? [];
  const place = (name: string) => points.find((point) => point.name === name);
  const end = Math.max(
    ...Object.values(commonText).map((name) => (place(name)?.offset ?? 0) + (place(name)?.size ?? 0)),
  );
  const count = Math.min(end, 2 + length);
  let words: number[];
  try {
    words = await read(address, count);
  } catch {
    return null;
  }
  const text = (name: string): string | null => {
    const point = place(name);
    if (point === undefined || point.offset + point.size > words.length) return null;
    const bytes = words.slice(point.offset, point.offset + point.size).flatMap((word) => [word >> 8, word & 0xff]);
    const value = Buffer.from(bytes).toString("latin1").replace(/\0.*$/su, "").trim();
    return value === "" ? null : value;
  };
  return {
    manufacturer: text(commonText.manufacturer),
    model: text(commonText.model),
    version: text(commonText.version),
    serial: text(commonText.serial),
  };
}
