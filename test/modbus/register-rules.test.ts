import { describe, expect, test } from "bun:test";
import { dataTypes, registerSpan, wordsPerValue } from "../../src/modbus/register-model.ts";
import { registerProblems } from "../../src/modbus/register-rules.ts";

const context = { isNew: true, maxRegistersPerRequest: 125 };
const fieldsOf = (fields: Record<string, unknown>) => registerProblems(fields, context).map((p) => p.field);

describe("register rules", () => {
  test("a span comes from the words table, a string from its length, bits span one", () => {
    for (const dataType of dataTypes) {
      if (dataType === "string") continue;
      expect(registerSpan({ functionCode: 3, dataType, length: null })).toBe(wordsPerValue[dataType]);
    }
    expect(registerSpan({ functionCode: 4, dataType: "string", length: 10 })).toBe(10);
    expect(registerSpan({ functionCode: 1, dataType: "bool", length: null })).toBe(1);
  });

  test("a complete register has no problems", () => {
    expect(registerProblems({ address: 0, data_type: "float32" }, context)).toEqual([]);
    expect(registerProblems({ address: 3, function_code: 1, data_type: "bool" }, context)).toEqual([]);
    expect(registerProblems({ address: 3, data_type: "bool", bit: 4 }, context)).toEqual([]);
  });

  test("bit and length only where the data type and function code use them", () => {
    expect(fieldsOf({ address: 0, data_type: "bool" })).toEqual(["bit"]);
    expect(fieldsOf({ address: 0, data_type: "int16", bit: 1 })).toEqual(["bit"]);
    expect(fieldsOf({ address: 0, data_type: "string" })).toEqual(["length"]);
    expect(fieldsOf({ address: 0, data_type: "int16", length: 2 })).toEqual(["length"]);
    expect(fieldsOf({ address: 0, function_code: 2, data_type: "int16" })).toEqual(["data_type"]);
  });

  test("a new register needs address and data_type; the caller is told which is the plain requirement", () => {
    const problems = registerProblems({}, context);
    expect(problems.map((p) => [p.field, p.kind])).toEqual([
      ["address", "required"],
      ["data_type", "required"],
    ]);
    expect(registerProblems({ function_code: 1, address: 0 }, context)[0]?.message).toContain("data_type: bool");
    expect(registerProblems({}, { ...context, isNew: false })).toEqual([]);
  });

  test("the span must fit the address range and one request", () => {
    expect(fieldsOf({ address: 65534, data_type: "float64" })).toEqual(["address"]);
    const tooLong = registerProblems({ address: 0, data_type: "float64" }, { isNew: true, maxRegistersPerRequest: 2 });
    expect(tooLong).toEqual([
      {
        field: "data_type",
        kind: "request",
        span: 4,
        message: "a float64 spans 4 registers, but this device reads at most 2 per request (max_registers_per_request)",
      },
    ]);
  });
});
