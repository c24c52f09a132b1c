/**
 * fieldhub's SunSpec model tables and the registers made of them (docs/sunspec.md,
 * "Registers"): every model the issue lists is there with the version it was written
 * from, points get `<model>.<point>` names (repeating groups an instance index), data
 * types, units and their scale-factor registers, and the raw value SunSpec uses for
 * "not implemented" per point type.
 */
import { describe, expect, test } from "bun:test";
import { sunSpecModels, sunSpecModelsVersion } from "../../../src/modbus/sunspec/models/index.ts";
import { knownSunSpecModelIds, sunSpecRegisters } from "../../../src/modbus/sunspec/points.ts";

describe("SunSpec model tables", () => {
  test("know models 1, 101-103, 111-113, 124, 160, 201-204, 211-214 and 701-713, from a named commit", () => {
    const wanted = [1, 101, 102, 103, 111, 112, 113, 124, 160, 201, 202, 203, 204, 211, 212, 213, 214];
    for (let id = 701; id <= 713; id++) wanted.push(id);
    expect([...knownSunSpecModelIds()].sort((a, b) => a - b)).toEqual(wanted.sort((a, b) => a - b));
    expect(sunSpecModelsVersion.commit).toMatch(/^[0-9a-f]{40}$/);
    // Each model's fixed part is as long as its points, the id and length words included.
    for (const model of sunSpecModels) {
      const last = model.points.at(-1);
      expect(last === undefined ? 0 : last.offset + last.size).toBe(model.fixedLength);
    }
  });

  test("model 103's points: names, types, units, scale factors and not-implemented values", () => {
    const registers = new Map(sunSpecRegisters({ models: [103] }).map((register) => [register.name, register]));
    expect(registers.get("103.W")).toMatchObject({
      place: { model: 103, offset: 14 },
      dataType: "int16",
      unit: "W",
      scaleFactorRegister: "103.W_SF",
      notImplemented: -0x8000,
    });
    expect(registers.get("103.A")).toMatchObject({ dataType: "uint16", unit: "A", notImplemented: 0xffff });
    expect(registers.get("103.WH")).toMatchObject({ place: { offset: 24 }, dataType: "uint32", notImplemented: 0 });
    expect(registers.get("103.Evt1")).toMatchObject({ dataType: "uint32", notImplemented: 0xffffffff });
    expect(registers.get("103.W_SF")).toMatchObject({ dataType: "int16", notImplemented: -0x8000 });
    // The id and length words are not registers.
    expect(registers.has("103.ID")).toBe(false);
    expect(registers.has("103.L")).toBe(false);
  });

  test("a repeating group gets an instance index; its points find the model's scale factors", () => {
    const registers = sunSpecRegisters({ models: [160], repeats: 2 });
    const names = registers.map((register) => register.name);
    expect(names).toContain("160.module.2.DCWH");
    expect(names).not.toContain("160.module.3.DCA");
    const second = registers.find((register) => register.name === "160.module.2.DCA");
    expect(second).toMatchObject({ place: { model: 160, offset: 10 + 20 + 9 }, scaleFactorRegister: "160.DCA_SF" });
    expect(registers.find((register) => register.name === "160.module.1.IDStr")).toMatchObject({
      dataType: "string",
      length: 8,
    });
  });

  test("float models: float32 points have no not-implemented raw value (NaN decodes to null)", () => {
    const w = sunSpecRegisters({ models: [113] }).find((register) => register.name === "113.W");
    expect(w).toMatchObject({ dataType: "float32", unit: "W" });
    expect(w?.notImplemented).toBeUndefined();
  });

  test("`true` selects every known model; an unknown id selects nothing", () => {
    const all = new Set(sunSpecRegisters(true).map((register) => register.place.model));
    expect([...all].sort((a, b) => a - b)).toEqual([...knownSunSpecModelIds()].sort((a, b) => a - b));
    expect(sunSpecRegisters({ models: [64001] })).toEqual([]);
  });
});
