/**
 * Walking a SunSpec model chain (docs/sunspec.md, "The model chain") over an in-memory
 * register map: the marker at each of the three base addresses, the models in order to
 * the end marker, and the walks a broken chain must not run away with.
 */
import { describe, expect, test } from "bun:test";
import { findSunSpecChain, type HoldingRegisterReader } from "../../../src/modbus/sunspec/chain.ts";

/** A device's holding registers: `blocks` maps a start address to its words; any other address raises exception 2. */
function registerMap(blocks: Record<number, number[]>) {
  const words = new Map<number, number>();
  for (const [start, values] of Object.entries(blocks)) {
    for (const [index, value] of values.entries()) words.set(Number(start) + index, value);
  }
  const reads: [number, number][] = [];
  const read: HoldingRegisterReader = async (address, count) => {
    reads.push([address, count]);
    const answer: number[] = [];
    for (let index = 0; index < count; index++) {
      const value = words.get(address + index);
      if (value === undefined) throw Object.assign(new Error("Modbus exception 2"), { modbusCode: 2 });
      answer.push(value);
    }
    return answer;
  };
  return { read, reads };
}

/** A model: id, length and `length` zero words. */
const model = (id: number, length: number) => [id, length, ...new Array<number>(length).fill(0)];
const SUNS = [0x5375, 0x6e53];
const END = [0xffff, 0];

describe("findSunSpecChain", () => {
  test("finds the marker at 40000 and walks models 1, 103 and 160 to the end marker", async () => {
    const device = registerMap({ 40000: [...SUNS, ...model(1, 66), ...model(103, 50), ...model(160, 48), ...END] });
    expect(await findSunSpecChain(device.read)).toEqual({
      base: 40000,
      models: [
        { id: 1, address: 40002, length: 66 },
        { id: 103, address: 40070, length: 50 },
        { id: 160, address: 40122, length: 48 },
      ],
      end: "end_marker",
    });
    // The walk reads the marker and one id/length pair per model, never a model's points.
    expect(device.reads).toEqual([
      [40000, 2],
      [40002, 2],
      [40070, 2],
      [40122, 2],
      [40172, 2],
    ]);
  });

  test("looks at 0 when 40000 does not answer, then at 50000", async () => {
    const atZero = registerMap({ 0: [...SUNS, ...model(1, 65), ...END] });
    expect(await findSunSpecChain(atZero.read)).toMatchObject({ base: 0, models: [{ id: 1, address: 2, length: 65 }] });
    expect(atZero.reads.slice(0, 2)).toEqual([
      [40000, 2],
      [0, 2],
    ]);

    const atFiftyThousand = registerMap({ 40000: [0, 0], 0: [1, 2], 50000: [...SUNS, ...model(101, 50), ...END] });
    expect(await findSunSpecChain(atFiftyThousand.read)).toMatchObject({
      base: 50000,
      models: [{ id: 101, address: 50002, length: 50 }],
      end: "end_marker",
    });
  });

  test("a device without the marker gives null; the bases can be chosen", async () => {
    const plain = registerMap({ 0: [1, 2, 3], 40000: [0x5375, 0] });
    expect(await findSunSpecChain(plain.read)).toBeNull();
    expect(plain.reads.map(([address]) => address)).toEqual([40000, 0, 50000]);

    const custom = registerMap({ 1000: [...SUNS, ...END] });
    expect(await findSunSpecChain(custom.read, { bases: [1000] })).toEqual({
      base: 1000,
      models: [],
      end: "end_marker",
    });
  });

  test("an unknown model is listed by id and length like any other", async () => {
    const device = registerMap({ 40000: [...SUNS, ...model(1, 66), ...model(64001, 7), ...model(160, 28), ...END] });
    const chain = await findSunSpecChain(device.read);
    expect(chain?.models.map(({ id, length }) => [id, length])).toEqual([
      [1, 66],
      [64001, 7],
      [160, 28],
    ]);
  });

  test("a read that fails mid-chain ends the walk with the models before it", async () => {
    // Model 103 claims 60 registers where the map has 50: the next header is not there.
    const device = registerMap({
      40000: [...SUNS, ...model(1, 66), 103, 60, ...new Array<number>(50).fill(0), ...END],
    });
    expect(await findSunSpecChain(device.read)).toEqual({
      base: 40000,
      models: [
        { id: 1, address: 40002, length: 66 },
        { id: 103, address: 40070, length: 60 },
      ],
      end: "read_failed",
    });
  });

  test("a model running past address 65535 ends the walk as an overrun", async () => {
    const device = registerMap({ 50000: [...SUNS, ...model(1, 66), 103, 0xfff0] });
    expect(await findSunSpecChain(device.read, { bases: [50000] })).toEqual({
      base: 50000,
      models: [{ id: 1, address: 50002, length: 66 }],
      end: "overrun",
    });
  });

  test("a chain of zero-length models without an end marker stops at maxModels", async () => {
    // Every header reads as model 7 of length 0: without a limit the walk would go on to 65535.
    const read: HoldingRegisterReader = async (address, count) =>
      address === 40000 ? [...SUNS] : new Array<number>(count).fill(0).map((_, index) => (index === 0 ? 7 : 0));
    const chain = await findSunSpecChain(read, { maxModels: 10 });
    expect(chain?.models).toHaveLength(10);
    expect(chain?.end).toBe("too_many_models");
    expect(chain?.models.at(-1)).toEqual({ id: 7, address: 40020, length: 0 });
  });

  test("a read that answers too few words counts as failed", async () => {
    const read: HoldingRegisterReader = async (address) => (address === 40000 ? [...SUNS] : [1]);
    expect(await findSunSpecChain(read)).toEqual({ base: 40000, models: [], end: "read_failed" });
  });
});

describe("stopLooking", () => {
  test("ends the search after a base without the marker when it says so", async () => {
    const silent = registerMap({ 50000: [...SUNS, ...END] });
    let asked = 0;
    const stopLooking = () => ++asked >= 2;
    expect(await findSunSpecChain(silent.read, { stopLooking })).toBeNull();
    expect(silent.reads.map(([address]) => address)).toEqual([40000, 0]);
    expect(await findSunSpecChain(silent.read, { stopLooking: () => false })).toMatchObject({ base: 50000 });
  });
});
