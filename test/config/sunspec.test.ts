/**
 * The config's SunSpec and scale-factor fields (docs/config.md, "SunSpec devices",
 * "Scale factors read from the device", "Not-implemented values"): what a checked file
 * gives the pollers, and each mistake refused at its path.
 */
import { describe, expect, test } from "bun:test";
import type { PollingDevice } from "../../src/config/index.ts";
import { at, configOf, expectOnlyProblem, minimalFile, problemsOf, type Yamlish } from "./helpers.ts";

function device(file: Yamlish): Yamlish {
  return at(file, "gateways", 0, "devices", 0);
}

function polled(file: Yamlish): PollingDevice {
  const polling = configOf(file).polling[0]?.devices[0];
  if (polling === undefined) throw new Error("no device");
  return polling;
}

describe("sunspec:", () => {
  test("models become registers named <model>.<point>, placed by model and offset, scaled by their SF points", () => {
    const file = minimalFile();
    device(file).sunspec = { models: [1, 103, 160], repeats: 2 };
    const registers = new Map(polled(file).registers.map((register) => [register.name, register]));
    const w = registers.get("103.W");
    const wSf = registers.get("103.W_SF");
    expect(w).toMatchObject({ sunspec: { model: 103, offset: 14 }, dataType: "int16", notImplemented: -0x8000 });
    expect(w?.scaleFactorRegisterId).toBe(wSf?.id);
    expect(registers.get("1.SN")).toMatchObject({ dataType: "string", length: 16, sunspec: { model: 1, offset: 50 } });
    expect(registers.has("160.module.2.DCA")).toBe(true);
    expect(registers.has("160.module.3.DCA")).toBe(false);
    // The file's own register is still there, after the SunSpec points (as after a template's).
    expect(polled(file).registers.at(-1)?.name).toBe("t");
    const inventory = configOf(file).inventory.organizations[0]?.gateways[0]?.modbusDevices[0]?.registers;
    expect(inventory?.find((register) => register.name === "103.W")).toMatchObject({ unit: "W", scaleFactor: null });
  });

  test("a point's override sets its own poll interval and MQTT deadband", () => {
    const file: Yamlish = { ...minimalFile(), mqtt: { url: "mqtt://broker.local" } };
    device(file).sunspec = { models: [103] };
    device(file).registers = [{ name: "103.W", poll_interval_ms: 1000, deadband: 50 }];
    const w = polled(file).registers.find((register) => register.name === "103.W");
    expect(w?.pollIntervalMs).toBe(1000);
    expect([...(configOf(file).mqtt?.deadbands ?? [])]).toEqual([[w?.id ?? "", 50]]);
  });

  test("true gives every known model's points", () => {
    const file = minimalFile();
    device(file).sunspec = true;
    const models = new Set(polled(file).registers.flatMap((register) => register.sunspec?.model ?? []));
    expect(models.has(1) && models.has(214) && models.has(713)).toBe(true);
  });

  test("a file register of a SunSpec name overrides that point", () => {
    const file = minimalFile();
    device(file).sunspec = { models: [103] };
    device(file).registers = [{ name: "103.W", unit: "kW", not_implemented: 0 }];
    const w = polled(file).registers.find((register) => register.name === "103.W");
    expect(w).toMatchObject({ notImplemented: 0, sunspec: { model: 103, offset: 14 } });
    const inventory = configOf(file).inventory.organizations[0]?.gateways[0]?.modbusDevices[0]?.registers;
    expect(inventory?.find((register) => register.name === "103.W")?.unit).toBe("kW");
  });

  test("an unknown model and a repeated one are refused at their index", () => {
    const file = minimalFile();
    device(file).sunspec = { models: [103, 64001, 103] };
    const problems = problemsOf(file);
    expect(problems.map((problem) => problem.path)).toEqual([
      "gateways[0].devices[0].sunspec.models[1]",
      "gateways[0].devices[0].sunspec.models[2]",
    ]);
    expect(problems[0]?.message).toMatch(/^is not a SunSpec model fieldhub knows: 64001; it knows 1, 101, /);
    expect(problems[1]?.message).toBe("lists model 103 again (also at models[0])");
  });

  test("a malformed sunspec: is refused", () => {
    const file = minimalFile();
    device(file).sunspec = { models: [] };
    expectOnlyProblem(file, "gateways[0].devices[0].sunspec", /must be true, false or/);
    device(file).sunspec = "yes";
    expectOnlyProblem(file, "gateways[0].devices[0].sunspec", /must be true, false or/);
  });
});

describe("scale_factor_register and not_implemented", () => {
  function withRegisters(...registers: Yamlish[]): Yamlish {
    const file = minimalFile();
    device(file).registers = registers;
    return file;
  }
  const power = { name: "power", address: 1, data_type: "uint16", scale_factor_register: "power_sf" };
  const powerSf = { name: "power_sf", address: 2, data_type: "int16" };

  test("the poller gets the scale-factor register's id and the not-implemented raw value", () => {
    const registers = polled(
      withRegisters({ ...power, not_implemented: 65535 }, powerSf, { name: "t", address: 0, data_type: "int16" }),
    ).registers;
    const sf = registers.find((register) => register.name === "power_sf");
    expect(registers.find((register) => register.name === "power")).toMatchObject({
      scaleFactorRegisterId: sf?.id,
      notImplemented: 65535,
    });
  });

  test("an unknown name is refused with a suggestion", () => {
    expectOnlyProblem(
      withRegisters({ ...power, scale_factor_register: "power_fs" }, powerSf),
      "gateways[0].devices[0].registers[0].scale_factor_register",
      /^names no register of this device: "power_fs" \(did you mean/,
    );
  });

  test("a register that is not int16 is refused", () => {
    expectOnlyProblem(
      withRegisters(power, { ...powerSf, data_type: "uint16" }),
      "gateways[0].devices[0].registers[0].scale_factor_register",
      'must name a signed 16-bit register (data_type int16, function_code 3 or 4): "power_sf" is "uint16" on function_code 3',
    );
  });

  test("a cycle, or a register naming itself, is refused", () => {
    const problems = problemsOf(withRegisters(power, { ...powerSf, scale_factor_register: "power" }));
    expect(problems.map((problem) => problem.path)).toEqual([
      "gateways[0].devices[0].registers[0].scale_factor_register",
      "gateways[0].devices[0].registers[1].scale_factor_register",
    ]);
    expect(problems[1]?.message).toMatch(/must name a signed 16-bit register/);
    expectOnlyProblem(
      withRegisters({ ...powerSf, scale_factor_register: "power_sf" }),
      "gateways[0].devices[0].registers[0].scale_factor_register",
      /names this register itself/,
    );
  });

  test("with scale_factor, on a string, or writable: refused", () => {
    expectOnlyProblem(
      withRegisters({ ...power, scale_factor: 0.1 }, powerSf),
      "gateways[0].devices[0].registers[0].scale_factor_register",
      /cannot go with scale_factor/,
    );
    expectOnlyProblem(
      withRegisters({ name: "label", address: 5, data_type: "string", length: 2, not_implemented: 0 }),
      "gateways[0].devices[0].registers[0].not_implemented",
      "is only allowed on a numeric register (this one is string)",
    );
    expectOnlyProblem(
      withRegisters({ ...power, writable: true, min: 0, max: 10 }, powerSf),
      "gateways[0].devices[0].registers[0].scale_factor_register",
      /cannot go with writable: true/,
    );
  });
});
