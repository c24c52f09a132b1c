import { describe, expect, test } from "bun:test";
import { templateRegisterRecord } from "../../src/config/device-registers.ts";
import { type DeviceTemplate, deviceTemplates, findTemplate, type PollingDevice } from "../../src/config/index.ts";
import { templateKinds } from "../../src/config/templates/types.ts";
import { stableUuid } from "../../src/lib/ids.ts";
import type { InventoryModbusDevice } from "../../src/lib/inventory.ts";
import { decodeWords } from "../../src/modbus/decode.ts";
import { registerSpan } from "../../src/modbus/register-model.ts";
import { configOf, expectOnlyProblem, problemsOf, type Yamlish } from "./helpers.ts";

const serial = "FH-1";

/** One TCP gateway with these devices. */
function fileWith(...devices: Yamlish[]): Yamlish {
  return {
    organizations: [{ key: "acme", name: "Acme" }],
    gateways: [{ serial, name: "G", bus: { type: "tcp" }, devices }],
  };
}

function meter(extra: Yamlish = {}): Yamlish {
  return { name: "Meter", host: "10.0.0.6", slave_id: 1, template: { brand: "Eastron", model: "SDM630" }, ...extra };
}

function onlyDevice(file: Yamlish | string): { inventory: InventoryModbusDevice; polling: PollingDevice } {
  const config = configOf(file);
  const inventory = config.inventory.organizations[0]?.gateways[0]?.modbusDevices[0];
  const polling = config.polling[0]?.devices[0];
  if (inventory === undefined || polling === undefined) throw new Error("no device");
  return { inventory, polling };
}

const sdm630 = findTemplate("Eastron", "SDM630") as DeviceTemplate;
const em24 = findTemplate("Carlo Gavazzi", "EM24") as DeviceTemplate;
const registerId = (name: string) => stableUuid("register", serial, "Meter", name);

describe("the shipped library", () => {
  test("has the equipment it promises", () => {
    expect(deviceTemplates().length).toBeGreaterThanOrEqual(30);
    const kinds = deviceTemplates().map((t) => t.kind);
    expect(kinds.filter((kind) => kind === "energy meter").length).toBeGreaterThanOrEqual(5);
    for (const kind of templateKinds) expect(kinds).toContain(kind);
    const labels = deviceTemplates().map((t) => `${t.brand}/${t.model}`);
    expect(new Set(labels).size).toBe(labels.length);
  });

  describe.each(deviceTemplates().map((t) => [`${t.brand} ${t.model}`, t] as const))("%s", (_label, template) => {
    test("says where its map comes from and what it defaults to", () => {
      // No template without the manufacturer's document, named by title and version.
      expect(template.source.title.trim().length).toBeGreaterThan(10);
      expect(template.source.version.trim().length).toBeGreaterThan(0);
      // A real version (document number, revision, issue or date as printed), not where it was found.
      expect(template.source.version).not.toMatch(/\bas (published|attached|referenced)\b/i);
      // Where in the document every register was checked.
      expect(template.source.checkedAgainst?.trim().length ?? 0).toBeGreaterThan(0);
      if (template.source.url !== undefined) expect(template.source.url).toMatch(/^https:\/\/\S+$/);
      expect(template.notes.length).toBeGreaterThan(20);
      expect(template.pollIntervalMs).toBeGreaterThanOrEqual(100);
      expect(template.pollIntervalMs).toBeLessThanOrEqual(86_400_000);
      const max = template.maxRegistersPerRequest ?? 125;
      expect(max >= 1 && max <= 125).toBe(true);
      expect(template.registers.length).toBeGreaterThan(0);
    });

    test("every register is named, described and unique, and one request can read it", () => {
      const names = template.registers.map((r) => r.name);
      expect(new Set(names).size).toBe(names.length);
      for (const register of template.registers) {
        expect(register.name).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(register.description.length).toBeGreaterThan(0);
        if (register.unit !== null) expect(register.unit.length).toBeGreaterThan(0);
        const span = registerSpan({ ...register, length: register.length ?? null });
        expect(register.address + span - 1).toBeLessThanOrEqual(65535);
        if (register.functionCode >= 3) expect(span).toBeLessThanOrEqual(template.maxRegistersPerRequest ?? 125);
      }
    });

    test("every register has an example, and its words decode to the example's value", () => {
      expect(Object.keys(template.examples).sort()).toEqual(template.registers.map((r) => r.name).sort());
      for (const register of template.registers) {
        const example = template.examples[register.name];
        if (example === undefined) throw new Error(`no example for ${register.name}`);
        const decoding = {
          id: register.name,
          functionCode: register.functionCode,
          address: register.address,
          dataType: register.dataType,
          byteOrder: register.byteOrder ?? template.byteOrder,
          bit: register.bit ?? null,
          length: register.length ?? null,
        };
        const bits = register.functionCode <= 2;
        expect([register.name, example.words.length]).toEqual([register.name, bits ? 1 : registerSpan(decoding)]);
        for (const word of example.words) expect(Number.isInteger(word) && word >= 0 && word <= 0xffff).toBe(true);
        const raw = bits ? (example.words[0] ?? 0) & 1 : decodeWords(decoding, example.words, 0);
        const value = typeof raw === "number" ? raw * (register.scaleFactor ?? 1) : raw;
        if (typeof value === "number" && typeof example.value === "number") {
          expect([register.name, Math.abs(value - example.value) <= 1e-9 * Math.max(1, Math.abs(value))]).toEqual([
            register.name,
            true,
          ]);
        } else {
          expect([register.name, value]).toEqual([register.name, example.value]);
        }
      }
    });

    test("every register passes the config's own checks when written out in a file", () => {
      // The template's registers as a device of its own would write them: the same
      // structure and rule checks as any register of a config file.
      const written = template.registers.map((register) => templateRegisterRecord(template, register));
      const plain = { name: "Written", host: "10.0.0.9", slave_id: 1, registers: written };
      const config = configOf(
        fileWith(plain, {
          name: "Templated",
          host: "10.0.0.8",
          slave_id: 1,
          template: { brand: template.brand, model: template.model },
        }),
      );
      const [writtenDevice, templatedDevice] = config.polling[0]?.devices ?? [];
      const withoutIds = (device: PollingDevice | undefined) => device?.registers.map(({ id: _, ...rest }) => rest);
      expect(withoutIds(templatedDevice)).toEqual(withoutIds(writtenDevice) ?? []);
      expect(templatedDevice?.registers.length).toBe(template.registers.length);
    });

    test("a device naming it expands to all its registers, in order, with stable ids", () => {
      const { inventory, polling } = onlyDevice(
        fileWith({
          name: "Meter",
          host: "10.0.0.6",
          slave_id: 1,
          template: { brand: template.brand, model: template.model },
        }),
      );
      expect(inventory.template).toEqual({
        id: stableUuid("template", template.brand, template.model),
        brand: template.brand,
        model: template.model,
      });
      expect(inventory.registers.map((r) => r.name)).toEqual(template.registers.map((r) => r.name));
      expect(inventory.registers.map((r) => r.id)).toEqual(template.registers.map((r) => registerId(r.name)));
      expect(polling.registers.map((r) => r.id)).toEqual(inventory.registers.map((r) => r.id));
      expect(inventory.pollIntervalMs).toBe(template.pollIntervalMs);
      expect(polling.maxRegistersPerRequest).toBe(template.maxRegistersPerRequest ?? 125);
    });
  });
});

describe("a device with a template", () => {
  test("gets each register's fields from the template", () => {
    const { inventory, polling } = onlyDevice(fileWith(meter()));
    expect(inventory.registers[0]).toEqual({
      id: registerId("voltage_l1"),
      name: "voltage_l1",
      address: 0,
      functionCode: 4,
      dataType: "float32",
      unit: "V",
      scaleFactor: null,
      isWritable: false,
      writeMin: null,
      writeMax: null,
      description: "Phase 1 line to neutral voltage",
    });
    expect(polling.registers[0]).toEqual({
      id: registerId("voltage_l1"),
      name: "voltage_l1",
      functionCode: 4,
      address: 0,
      dataType: "float32",
      byteOrder: "ABCD",
      bit: null,
      length: null,
    });
    expect(polling).toMatchObject({ pollIntervalMs: 15_000, maxRegistersPerRequest: 80 });
  });

  test("written device fields win over the template's suggestions", () => {
    const { polling } = onlyDevice(fileWith(meter({ poll_interval_ms: 2000, max_registers_per_request: 40 })));
    expect(polling).toMatchObject({ pollIntervalMs: 2000, maxRegistersPerRequest: 40 });
  });

  test("override: an entry with a template register's name replaces only the fields it writes", () => {
    const id = "0b7e6a8c-3f1d-4f2a-9c55-2d1e8b7a6c40";
    const { inventory, polling } = onlyDevice(
      fileWith(meter({ registers: [{ name: "active_power", id, unit: "kW", scale_factor: 0.001, writable: false }] })),
    );
    const names = inventory.registers.map((r) => r.name);
    expect(names).toEqual(sdm630.registers.map((r) => r.name));
    const index = names.indexOf("active_power");
    expect(inventory.registers[index]).toEqual({
      id,
      name: "active_power",
      address: 0x34,
      functionCode: 4,
      dataType: "float32",
      unit: "kW",
      scaleFactor: 0.001,
      isWritable: false,
      writeMin: null,
      writeMax: null,
      description: "Total system active power",
    });
    expect(polling.registers[index]).toMatchObject({ id, address: 0x34, byteOrder: "ABCD" });
  });

  test("override: its own poll interval and MQTT deadband are the register's", () => {
    const file = fileWith(meter({ registers: [{ name: "frequency", poll_interval_ms: 1000, deadband: 0.05 }] }));
    const { polling } = onlyDevice({ ...file, mqtt: { url: "mqtt://broker.local" } });
    expect(polling.registers.find((r) => r.name === "frequency")?.pollIntervalMs).toBe(1000);
    expect(polling.registers.find((r) => r.name === "active_power")?.pollIntervalMs).toBeUndefined();
    const deadbands = configOf({ ...file, mqtt: { url: "mqtt://broker.local" } }).mqtt?.deadbands;
    expect([...(deadbands ?? [])]).toEqual([[registerId("frequency"), 0.05]]);
  });

  test("override: address, data type and byte order too", () => {
    const { polling } = onlyDevice(
      fileWith(meter({ registers: [{ name: "frequency", address: 1000, data_type: "int16", byte_order: "BADC" }] })),
    );
    const frequency = polling.registers.find((r) => r.id === registerId("frequency"));
    expect(frequency).toMatchObject({ address: 1000, dataType: "int16", byteOrder: "BADC", functionCode: 4 });
  });

  test("extend: entries with new names come after the template's registers", () => {
    const { inventory, polling } = onlyDevice(
      fileWith({
        name: "Meter",
        host: "10.0.0.6",
        slave_id: 1,
        template: { brand: "Carlo Gavazzi", model: "EM24" },
        registers: [
          { name: "serial_number", address: 0x5000, data_type: "string", length: 7 },
          { name: "active_power", unit: "watts" },
        ],
      }),
    );
    const names = inventory.registers.map((r) => r.name);
    expect(names).toEqual([...em24.registers.map((r) => r.name), "serial_number"]);
    expect(inventory.registers.find((r) => r.name === "active_power")?.unit).toBe("watts");
    // A register the file adds takes the template's byte order unless it says otherwise.
    expect(polling.registers.at(-1)).toEqual({
      id: registerId("serial_number"),
      name: "serial_number",
      functionCode: 3,
      address: 0x5000,
      dataType: "string",
      byteOrder: "CDAB",
      bit: null,
      length: 7,
    });
  });

  test("exclude: drops template registers and keeps the order of the rest", () => {
    const { inventory } = onlyDevice(
      fileWith(
        meter({
          exclude: ["voltage_l2", "energy_total"],
          registers: [{ name: "extra", address: 500, data_type: "int16" }],
        }),
      ),
    );
    const expected = sdm630.registers.map((r) => r.name).filter((n) => n !== "voltage_l2" && n !== "energy_total");
    expect(inventory.registers.map((r) => r.name)).toEqual([...expected, "extra"]);
  });

  test("template register ids are the ids the same registers get when written out", () => {
    const templated = onlyDevice(fileWith(meter())).inventory.registers.map((r) => r.id);
    const written = sdm630.registers.map((r) => templateRegisterRecord(sdm630, r));
    const plain = onlyDevice(fileWith({ name: "Meter", host: "10.0.0.6", slave_id: 1, registers: written }));
    expect(plain.inventory.registers.map((r) => r.id)).toEqual(templated);
  });

  test("an override that changes the data type does not inherit bit or length", () => {
    expectOnlyProblem(
      fileWith(meter({ registers: [{ name: "frequency", data_type: "string" }] })),
      "gateways[0].devices[0].registers[0].length",
      "is required when data_type is string: its length in registers, two characters each (1 to 123)",
    );
    expectOnlyProblem(
      fileWith(meter({ registers: [{ name: "frequency", data_type: "bool" }] })),
      "gateways[0].devices[0].registers[0].bit",
      "is required when data_type is bool on function_code 4: which bit of the 16-bit register to read (0 = least significant .. 15)",
    );
    const { polling } = onlyDevice(fileWith(meter({ registers: [{ name: "frequency", data_type: "bool", bit: 4 }] })));
    expect(polling.registers.find((r) => r.id === registerId("frequency"))).toMatchObject({ dataType: "bool", bit: 4 });
  });

  test("an override is checked as the whole register it makes", () => {
    expectOnlyProblem(
      fileWith(meter({ registers: [{ name: "reactive_energy_total", address: 65535 }] })),
      "gateways[0].devices[0].registers[0].address",
      "must be at most 65534: a float32 spans 2 registers and the last address is 65535; got 65535",
    );
  });
});

describe("template problems", () => {
  const library = `the library has: ${deviceTemplates()
    .map((t) => `${t.brand} ${t.model}`)
    .join(", ")}`;

  test("an unknown brand lists the library, with the closest brand", () => {
    expectOnlyProblem(
      fileWith(meter({ template: { brand: "Eastorn", model: "SDM630" } })),
      "gateways[0].devices[0].template.brand",
      `no template for brand "Eastorn" (did you mean "Eastron"?); ${library}`,
    );
    expectOnlyProblem(
      fileWith(meter({ template: { brand: "eastron", model: "SDM630" } })),
      "gateways[0].devices[0].template.brand",
      `no template for brand "eastron" (did you mean "Eastron"?); ${library}`,
    );
    expectOnlyProblem(
      fileWith(meter({ template: { brand: "Priva", model: "Connext" } })),
      "gateways[0].devices[0].template.brand",
      `no template for brand "Priva"; ${library}`,
    );
  });

  test("a brand that is off but a model that is known suggests the pair", () => {
    expectOnlyProblem(
      fileWith(meter({ template: { brand: "Schneider", model: "SDM630" } })),
      "gateways[0].devices[0].template.brand",
      `no template for brand "Schneider" (did you mean Eastron SDM630?); ${library}`,
    );
  });

  test("an unknown model lists the brand's models, with the closest", () => {
    expectOnlyProblem(
      fileWith(meter({ template: { brand: "Eastron", model: "SDM360" } })),
      "gateways[0].devices[0].template.model",
      `brand "Eastron" has no template "SDM360" (did you mean "SDM630"?); its models: SDM630, SDM120, SDM230, SDM72D-M V2, SDM72D-M (${library})`,
    );
  });

  test("with an unknown template, entries are not required to be complete (they may be overrides)", () => {
    expectOnlyProblem(
      fileWith(
        meter({ template: { brand: "Eastron", model: "SDM360" }, registers: [{ name: "active_power", unit: "kW" }] }),
      ),
      "gateways[0].devices[0].template.model",
      /^brand "Eastron" has no template "SDM360"/,
    );
  });

  test("a new register on a template device must be complete; a misspelt override gets a suggestion", () => {
    expect(problemsOf(fileWith(meter({ registers: [{ name: "frequncy", unit: "Hz" }] })))).toEqual([
      {
        path: "gateways[0].devices[0].registers[0].address",
        message:
          'is required ("frequncy" is not a register of template Eastron SDM630, so it is a new register; did you mean "frequency"?)',
      },
      {
        path: "gateways[0].devices[0].registers[0].data_type",
        message:
          'is required ("frequncy" is not a register of template Eastron SDM630, so it is a new register; did you mean "frequency"?)',
      },
    ]);
  });

  test("exclude needs a template", () => {
    const file = fileWith({ name: "Meter", host: "10.0.0.6", slave_id: 1, exclude: ["frequency"] });
    expectOnlyProblem(
      file,
      "gateways[0].devices[0].exclude",
      "is only allowed with template (it names template registers to leave out)",
    );
  });

  test("exclude names registers of the template, once each", () => {
    expect(problemsOf(fileWith(meter({ exclude: ["frequency", "voltage_l4", "frequency", ""] })))).toEqual([
      {
        path: "gateways[0].devices[0].exclude[1]",
        message: 'names "voltage_l4", which is not a register of template Eastron SDM630 (did you mean "voltage_l1"?)',
      },
      {
        path: "gateways[0].devices[0].exclude[2]",
        message: 'duplicate name "frequency" (also at gateways[0].devices[0].exclude[0])',
      },
      { path: "gateways[0].devices[0].exclude[3]", message: "must not be empty" },
    ]);
  });

  test("an override of an excluded register is a contradiction", () => {
    expectOnlyProblem(
      fileWith(meter({ exclude: ["frequency"], registers: [{ name: "frequency", unit: "Hz" }] })),
      "gateways[0].devices[0].registers[0].name",
      'overrides template register "frequency", which gateways[0].devices[0].exclude[0] leaves out; remove one or the other',
    );
  });

  test("a device that cannot read a template register in one request", () => {
    expectOnlyProblem(
      fileWith(meter({ max_registers_per_request: 1 })),
      "gateways[0].devices[0].max_registers_per_request",
      'must be at least 2: template register "voltage_l1" spans 2 registers (or exclude that register); got 1',
    );
  });

  test("two overrides of one template register", () => {
    expectOnlyProblem(
      fileWith(
        meter({
          registers: [
            { name: "frequency", unit: "Hz" },
            { name: "frequency", unit: "mHz" },
          ],
        }),
      ),
      "gateways[0].devices[0].registers[1].name",
      'duplicate name "frequency" (also at gateways[0].devices[0].registers[0].name)',
    );
  });

  test("a template register's derived id written on another register is a clash", () => {
    const file = fileWith(meter(), {
      name: "Other",
      host: "10.0.0.7",
      slave_id: 1,
      registers: [{ name: "x", id: registerId("frequency"), address: 0, data_type: "int16" }],
    });
    expectOnlyProblem(
      file,
      "gateways[0].devices[1].registers[0].id",
      `duplicate id "${registerId("frequency")}" (also the id derived for template register "frequency" of gateways[0].devices[0])`,
    );
  });
});

test("a template whose brand is not text is a structure problem only", () => {
  expectOnlyProblem(
    fileWith(meter({ template: { brand: 5, model: "SDM630" }, registers: [{ name: "active_power", unit: "kW" }] })),
    "gateways[0].devices[0].template.brand",
    "must be a string; got 5 (put it in quotes if it is text)",
  );
});

test("an override written with an empty value keeps the template's value", () => {
  const { inventory } = onlyDevice(`
organizations: [{ key: acme, name: Acme }]
gateways:
  - serial: ${serial}
    name: G
    bus: { type: tcp }
    devices:
      - name: Meter
        host: 10.0.0.6
        slave_id: 1
        template: { brand: Eastron, model: SDM630 }
        registers:
          - name: frequency
            unit:
            description: Grid frequency
`);
  expect(inventory.registers.find((r) => r.name === "frequency")).toMatchObject({
    unit: "Hz",
    description: "Grid frequency",
  });
});
