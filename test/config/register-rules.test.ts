import { describe, expect, test } from "bun:test";
import { at, configOf, expectOnlyProblem, minimalFile, problemsOf, type Yamlish } from "./helpers.ts";

const path = "gateways[0].devices[0].registers[0]";

/** The minimal file with its one register replaced by `register`. */
function withRegister(register: Yamlish, device: Yamlish = {}): Yamlish {
  const file = minimalFile();
  Object.assign(at(file, "gateways", 0, "devices", 0), device, { registers: [{ name: "r", ...register }] });
  return file;
}

function decodingOf(register: Yamlish) {
  return configOf(withRegister(register)).polling[0]?.devices[0]?.registers[0];
}

describe("byte_order", () => {
  test("defaults to ABCD and keeps what is written", () => {
    expect(decodingOf({ address: 0, data_type: "float32" })?.byteOrder).toBe("ABCD");
    expect(decodingOf({ address: 0, data_type: "float32", byte_order: "CDAB" })?.byteOrder).toBe("CDAB");
  });

  test("must be one of the four orders", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int32", byte_order: "ABDC" }),
      `${path}.byte_order`,
      'must be one of ABCD, CDAB, BADC, DCBA; got "ABDC"',
    );
  });
});

describe("bit", () => {
  test("is required for bool on function codes 3 and 4", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "bool" }),
      `${path}.bit`,
      "is required when data_type is bool on function_code 3: which bit of the 16-bit register to read (0 = least significant .. 15)",
    );
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 4, data_type: "bool" }),
      `${path}.bit`,
      "is required when data_type is bool on function_code 4: which bit of the 16-bit register to read (0 = least significant .. 15)",
    );
  });

  test("is 0..15 and ends up in the decoding", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "bool", bit: 16 }),
      `${path}.bit`,
      "must be between 0 and 15; got 16",
    );
    expect(decodingOf({ address: 0, data_type: "bool", bit: 15 })).toMatchObject({ dataType: "bool", bit: 15 });
    expect(decodingOf({ address: 0, data_type: "int16" })?.bit).toBeNull();
  });

  test("is refused on other data types and on coils", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int16", bit: 2 }),
      `${path}.bit`,
      "is only allowed when data_type is bool on function_code 3 or 4",
    );
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 1, data_type: "bool", bit: 2 }),
      `${path}.bit`,
      "is only allowed when data_type is bool on function_code 3 or 4 (function_code 1 reads single bits already)",
    );
  });
});

describe("length", () => {
  test("is required for strings", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "string" }),
      `${path}.length`,
      "is required when data_type is string: its length in registers, two characters each (1 to 123)",
    );
  });

  test("is 1..123 and ends up in the decoding", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "string", length: 124 }),
      `${path}.length`,
      "must be between 1 and 123; got 124",
    );
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "string", length: 0 }),
      `${path}.length`,
      "must be between 1 and 123; got 0",
    );
    expect(decodingOf({ address: 0, data_type: "string", length: 123 })).toMatchObject({ length: 123 });
    expect(decodingOf({ address: 0, data_type: "int16" })?.length).toBeNull();
  });

  test("is refused on other data types", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "uint32", length: 2 }),
      `${path}.length`,
      "is only allowed when data_type is string",
    );
  });
});

describe("function codes 1 and 2 read bits", () => {
  test("so data_type must be bool", () => {
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 1, data_type: "int16" }),
      `${path}.data_type`,
      'must be bool when function_code is 1 (coils are single bits); got "int16"',
    );
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 2, data_type: "string", length: 2 }),
      `${path}.data_type`,
      'must be bool when function_code is 2 (discrete inputs are single bits); got "string"',
    );
  });

  test("and bool must still be written", () => {
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 2 }),
      `${path}.data_type`,
      "is required: function_code 2 reads discrete inputs, single bits, so write data_type: bool",
    );
    expect(decodingOf({ address: 0, function_code: 2, data_type: "bool" })).toMatchObject({
      functionCode: 2,
      dataType: "bool",
      bit: null,
    });
  });
});

describe("a register's span must fit in 0..65535", () => {
  test("multi-register types near the end", () => {
    expectOnlyProblem(
      withRegister({ address: 65535, data_type: "float32" }),
      `${path}.address`,
      "must be at most 65534: a float32 spans 2 registers and the last address is 65535; got 65535",
    );
    expectOnlyProblem(
      withRegister({ address: 65533, data_type: "uint64" }),
      `${path}.address`,
      "must be at most 65532: a uint64 spans 4 registers and the last address is 65535; got 65533",
    );
    expectOnlyProblem(
      withRegister({ address: 65530, data_type: "string", length: 10 }),
      `${path}.address`,
      "must be at most 65526: a string of length 10 spans 10 registers and the last address is 65535; got 65530",
    );
  });

  test("what fits is accepted, and coils span one bit", () => {
    expect(decodingOf({ address: 65532, data_type: "float64" })?.address).toBe(65532);
    expect(decodingOf({ address: 65535, function_code: 1, data_type: "bool" })?.address).toBe(65535);
    expect(decodingOf({ address: 65535, data_type: "bool", bit: 0 })?.address).toBe(65535);
  });

  test("and one request must be able to read it", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "float64" }, { max_registers_per_request: 2 }),
      `${path}.data_type`,
      "a float64 spans 4 registers, but this device reads at most 2 per request (max_registers_per_request)",
    );
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "string", length: 20 }, { max_registers_per_request: 10 }),
      `${path}.length`,
      "a string of length 20 spans 20 registers, but this device reads at most 10 per request (max_registers_per_request)",
    );
  });
});

test("a register of a device without template needs address and data_type", () => {
  expect(problemsOf(withRegister({}))).toEqual([
    { path: `${path}.address`, message: "is required" },
    { path: `${path}.data_type`, message: "is required" },
  ]);
});

test("several broken registers are all reported", () => {
  const file = minimalFile();
  at(file, "gateways", 0, "devices", 0).registers = [
    { name: "a", address: 0, data_type: "bool" },
    { name: "b", address: 1, data_type: "string" },
    { name: "b", address: 2, data_type: "int16", bit: 1 },
  ];
  expect(problemsOf(file).map((p) => p.path)).toEqual([
    "gateways[0].devices[0].registers[0].bit",
    "gateways[0].devices[0].registers[1].length",
    "gateways[0].devices[0].registers[2].name",
    "gateways[0].devices[0].registers[2].bit",
  ]);
});

describe("writable registers", () => {
  test("a writable register gives min and max, and gets the write function that fits its data type", () => {
    expect(
      decodingOf({ address: 0, data_type: "int16", scale_factor: 0.1, writable: true, min: 5, max: 30 })?.write,
    ).toEqual({
      functionCode: 6,
      min: 5,
      max: 30,
      scaleFactor: 0.1,
    });
    expect(decodingOf({ address: 0, data_type: "float32", writable: true, min: 0, max: 1 })?.write?.functionCode).toBe(
      16,
    );
    expect(
      decodingOf({ address: 0, function_code: 1, data_type: "bool", writable: true, min: 0, max: 1 })?.write
        ?.functionCode,
    ).toBe(5);
    expect(
      decodingOf({ address: 0, data_type: "bool", bit: 3, writable: true, min: 0, max: 1 })?.write?.functionCode,
    ).toBe(6);
    expect(
      decodingOf({ address: 0, data_type: "uint16", writable: true, min: 0, max: 9, write_function: 16 })?.write
        ?.functionCode,
    ).toBe(16);
    expect(decodingOf({ address: 0, data_type: "int16" })?.write).toBeUndefined();
  });

  test("min and max are required when writable", () => {
    const problems = problemsOf(withRegister({ address: 0, data_type: "int16", writable: true }));
    expect(problems).toEqual([
      {
        path: `${path}.max`,
        message: "is required when writable is true: the highest value a write may set, in engineering units",
      },
      {
        path: `${path}.min`,
        message: "is required when writable is true: the lowest value a write may set, in engineering units",
      },
    ]);
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int16", writable: true, min: 10, max: 5 }),
      `${path}.max`,
      "must be at least min (10); got 5",
    );
  });

  test("only coils and holding registers are writable, and not strings", () => {
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 4, data_type: "int16", writable: true, min: 0, max: 1 }),
      `${path}.writable`,
      "cannot be true: function_code 4 reads input registers, which are read-only (only coils, function_code 1, and holding registers, function_code 3, are writable)",
    );
    expectOnlyProblem(
      withRegister({ address: 0, function_code: 2, data_type: "bool", writable: true, min: 0, max: 1 }),
      `${path}.writable`,
      "cannot be true: function_code 2 reads discrete inputs, which are read-only (only coils, function_code 1, and holding registers, function_code 3, are writable)",
    );
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "string", length: 2, writable: true, min: 0, max: 1 }),
      `${path}.writable`,
      "cannot be true: a string cannot be written through the API",
    );
  });

  test("write_function must fit the data type, and needs writable", () => {
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int32", writable: true, min: 0, max: 1, write_function: 6 }),
      `${path}.write_function`,
      "must be 16 for a int32 read with function_code 3; got 6",
    );
    expectOnlyProblem(
      withRegister({
        address: 0,
        function_code: 1,
        data_type: "bool",
        writable: true,
        min: 0,
        max: 1,
        write_function: 16,
      }),
      `${path}.write_function`,
      "must be 5 or 15 for a bool read with function_code 1; got 16",
    );
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int16", write_function: 6 }),
      `${path}.write_function`,
      "is only allowed when writable is true",
    );
    expectOnlyProblem(
      withRegister({ address: 0, data_type: "int16", writable: true, min: 0, max: 1, write_function: 3 }),
      `${path}.write_function`,
      "must be one of 5, 6, 15, 16; got 3",
    );
  });

  test("organizations[].writes_enabled defaults to false", () => {
    const file = minimalFile();
    expect(configOf(file).inventory.organizations[0]?.writesEnabled).toBe(false);
    Object.assign(at(file, "organizations", 0), { writes_enabled: true });
    expect(configOf(file).inventory.organizations[0]?.writesEnabled).toBe(true);
  });
});
