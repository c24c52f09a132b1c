/**
 * Finding a device's SunSpec models (docs/sunspec.md, "The model chain"). A SunSpec
 * device marks the start of its map with the words 0x5375 0x6E53 ("SunS") at one of
 * three well-known holding-register addresses; after the marker come its models, each
 * an id word and a length word followed by `length` registers, until the end marker
 * (id 0xFFFF). Both the poller (a device's `sunspec:` config) and `fieldhub discover`
 * walk the chain through this one function; neither writes to the device.
 */

/** Reads `count` holding registers (function code 3) from `address`; rejects on any failure. */
export type HoldingRegisterReader = (address: number, count: number) => Promise<number[]>;

/** One model in a device's chain. */
export interface SunSpecModelLocation {
  /** The model id (1 = common, 103 = three-phase inverter, ...). */
  id: number;
  /** The address of the model's id word; its first point is at `address + 2`. */
  address: number;
  /** The model's length word: how many registers follow the id and length words. */
  length: number;
}

/**
 * How the walk ended: at the end marker, or cut short (a read failed, the next model
 * would run past address 65535, or `maxModels` were read without an end marker).
 * The models before the cut are still returned.
 */
export type SunSpecChainEnd = "end_marker" | "read_failed" | "overrun" | "too_many_models";

export interface SunSpecChain {
  /** The address of the "SunS" marker. */
  base: number;
  models: SunSpecModelLocation[];
  end: SunSpecChainEnd;
}

export interface FindSunSpecChainOptions {
  /** Where to look for the marker, in order (default 40000, 0, 50000: the SunSpec specification's base addresses). */
  bases?: readonly number[];
  /** The most models walked before the walk counts as runaway (default 128). */
  maxModels?: number;
  /**
   * Asked after a base without the marker: true stops the search there (null is returned).
   * The poller stops when the device did not answer at all: a silent device costs one
   * timeout per cycle, not one per base.
   */
  stopLooking?: () => boolean;
}

/** "SunS" in two big-endian words. */
export const SUNSPEC_MARKER = [0x5375, 0x6e53] as const;
export const SUNSPEC_BASES = [40000, 0, 50000] as const;
export const SUNSPEC_END_MODEL_ID = 0xffff;
const DEFAULT_MAX_MODELS = 128;
const LAST_ADDRESS = 0xffff;

/**
 * Looks for the "SunS" marker at each base in turn (a read that fails there, as a Modbus
 * exception for an address the device lacks does, means "not here") and walks the model
 * chain after the first one found. Returns null when no base holds the marker.
 *
 * The walk only moves forward (each next model starts past the current one's end), so
 * it cannot loop; it stops at the end marker, at a read that fails, at a model whose
 * registers would run past address 65535, or after `maxModels` models, and says which
 * in `end`.
 */
export async function findSunSpecChain(
  read: HoldingRegisterReader,
  options: FindSunSpecChainOptions = {},
): Promise<SunSpecChain | null> {
  const bases = options.bases ?? SUNSPEC_BASES;
  const maxModels = options.maxModels ?? DEFAULT_MAX_MODELS;
  for (const base of bases) {
    if (!(await holdsMarker(read, base))) {
      if (options.stopLooking?.() === true) return null;
      continue;
    }
    return { base, ...(await walkModels(read, base + SUNSPEC_MARKER.length, maxModels)) };
  }
  return null;
}

async function holdsMarker(read: HoldingRegisterReader, base: number): Promise<boolean> {
  if (base < 0 || base + SUNSPEC_MARKER.length - 1 > LAST_ADDRESS) return false;
  const words = await readOrNull(read, base, SUNSPEC_MARKER.length);
  return words !== null && words[0] === SUNSPEC_MARKER[0] && words[1] === SUNSPEC_MARKER[1];
}

async function walkModels(
  read: HoldingRegisterReader,
  first: number,
  maxModels: number,
): Promise<{ models: SunSpecModelLocation[]; end: SunSpecChainEnd }> {
  const models: SunSpecModelLocation[] = [];
  let address = first;
  for (;;) {
    if (address + 1 > LAST_ADDRESS) return { models, end: "overrun" };
    const header = await readOrNull(read, address, 2);
    if (header === null || header.length < 2) return { models, end: "read_failed" };
    const [id, length] = header as [number, number];
    if (id === SUNSPEC_END_MODEL_ID) return { models, end: "end_marker" };
    if (models.length >= maxModels) return { models, end: "too_many_models" };
    // A model whose registers would end past 65535 cannot be read: the chain is corrupt.
    if (address + 1 + length > LAST_ADDRESS) return { models, end: "overrun" };
    models.push({ id, address, length });
    address += 2 + length;
  }
}

async function readOrNull(read: HoldingRegisterReader, address: number, count: number): Promise<number[] | null> {
  try {
    return await read(address, count);
  } catch {
    return null;
  }
}
