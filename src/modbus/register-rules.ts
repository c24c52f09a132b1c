/**
 * What one register needs, given its data type and function code: bit and length where
 * they mean something (and only there), bool for coils and discrete inputs, an address
 * range its span fits in, and a span one request can read. The config asks this of
 * each register as it will be polled (a template register with the file's overrides
 * applied) and puts each answer at the field's path.
 *
 * The fields are named as the config file writes them: they are the words of the
 * messages. Values are unchecked (the structure check reports a wrong type).
 */
import {
  type DataType,
  dataTypes,
  defaultFunctionCode,
  type FunctionCode,
  functionCodes,
  functionCodeTables,
  lastAddress,
  lastBit,
  maxStringLength,
  registerSpan,
  writeFunctionCodes,
  writeFunctionsFor,
} from "./register-model.ts";

export type RegisterField =
  | "address"
  | "data_type"
  | "bit"
  | "length"
  | "scale_factor"
  | "scale_factor_register"
  | "not_implemented"
  | "writable"
  | "min"
  | "max"
  | "write_function";

export interface RegisterProblem {
  field: RegisterField;
  message: string;
  /**
   * required: the plain "is required" of a new register (the caller may say why it is
   * new); request: the register spans more than one request may read (`span` words).
   */
  kind?: "required" | "request";
  span?: number;
}

export interface RegisterRulesContext {
  /** A register of the file's own (not a template's): address and data_type must be written. */
  isNew: boolean;
  /** How many registers one request may read (the device's max_registers_per_request in effect). */
  maxRegistersPerRequest: number;
}

export function registerProblems(
  fields: Readonly<Record<string, unknown>>,
  context: RegisterRulesContext,
): RegisterProblem[] {
  const problems: RegisterProblem[] = [];
  const say = (field: RegisterField, message: string, kind?: RegisterProblem["kind"]) =>
    problems.push(kind === undefined ? { field, message } : { field, message, kind });
  const fc =
    fields.function_code === undefined
      ? defaultFunctionCode
      : functionCodes.find((code) => code === fields.function_code);
  const dataType = dataTypes.find((type) => type === fields.data_type);
  const table = fc === undefined ? undefined : functionCodeTables[fc];
  const readsBits = table?.bits === true;

  if (context.isNew && fields.address === undefined) say("address", "is required", "required");
  if (context.isNew && fields.data_type === undefined) {
    if (readsBits)
      say("data_type", `is required: function_code ${fc} reads ${table?.table}, single bits, so write data_type: bool`);
    else say("data_type", "is required", "required");
  }
  if (readsBits && dataType !== undefined && dataType !== "bool") {
    say(
      "data_type",
      `must be bool when function_code is ${fc} (${table?.table} are single bits); got ${JSON.stringify(dataType)}`,
    );
  }

  if (fc !== undefined && dataType !== undefined) {
    const needsBit = dataType === "bool" && !readsBits;
    if (needsBit && fields.bit === undefined) {
      say(
        "bit",
        `is required when data_type is bool on function_code ${fc}: which bit of the 16-bit register to read (0 = least significant .. ${lastBit})`,
      );
    } else if (!needsBit && fields.bit !== undefined && !(readsBits && dataType !== "bool")) {
      say(
        "bit",
        readsBits
          ? `is only allowed when data_type is bool on function_code 3 or 4 (function_code ${fc} reads single bits already)`
          : "is only allowed when data_type is bool on function_code 3 or 4",
      );
    }
  }

  if (dataType === "string" && !readsBits && fields.length === undefined) {
    say(
      "length",
      `is required when data_type is string: its length in registers, two characters each (1 to ${maxStringLength})`,
    );
  } else if (dataType !== undefined && dataType !== "string" && fields.length !== undefined) {
    say("length", "is only allowed when data_type is string");
  }

  if (fields.scale_factor === 0) say("scale_factor", "must not be 0 (leave it out for no scaling)");
  problems.push(...valueMeaningProblems(fields, readsBits, dataType));

  if (fc !== undefined && dataType !== undefined) problems.push(...spanProblems(fields, fc, dataType, context));
  problems.push(...writeProblems(fields, fc, dataType));
  return problems;
}

/**
 * `scale_factor_register` and `not_implemented` need a number to apply to; a register
 * scaled by another is read only (a write would need the scale of the moment).
 * Which register `scale_factor_register` names is the config's to check (rules.ts).
 */
function valueMeaningProblems(
  fields: Readonly<Record<string, unknown>>,
  readsBits: boolean,
  dataType: DataType | undefined,
): RegisterProblem[] {
  const problems: RegisterProblem[] = [];
  const notNumeric = readsBits || dataType === "bool" || dataType === "string";
  for (const field of ["scale_factor_register", "not_implemented"] as const) {
    if (fields[field] !== undefined && notNumeric) {
      problems.push({ field, message: `is only allowed on a numeric register (this one is ${dataType ?? "bits"})` });
    }
  }
  if (fields.scale_factor_register !== undefined && fields.scale_factor !== undefined) {
    problems.push({
      field: "scale_factor_register",
      message: "cannot go with scale_factor: the scale comes from the register it names (value = raw x 10^sf)",
    });
  }
  if (fields.scale_factor_register !== undefined && fields.writable === true) {
    problems.push({
      field: "scale_factor_register",
      message: "cannot go with writable: true (a write needs a fixed scale)",
    });
  }
  return problems;
}

/**
 * A writable register: a coil or holding register, with the bounds a write
 * may set, and a write function code that fits its data type.
 */
function writeProblems(
  fields: Readonly<Record<string, unknown>>,
  fc: FunctionCode | undefined,
  dataType: DataType | undefined,
): RegisterProblem[] {
  const problems: RegisterProblem[] = [];
  const writeFunction = fields.write_function;
  if (fields.writable !== true) {
    if (writeFunction !== undefined) {
      problems.push({ field: "write_function", message: "is only allowed when writable is true" });
    }
    return problems;
  }
  if (fc === undefined || dataType === undefined) return problems;
  const fits = writeFunctionsFor(fc, dataType);
  if (fits.length === 0) {
    const why =
      fc === 1 || fc === 3
        ? `a ${dataType} cannot be written through the API`
        : `function_code ${fc} reads ${functionCodeTables[fc].table}, which are read-only (only coils, function_code 1, and holding registers, function_code 3, are writable)`;
    problems.push({ field: "writable", message: `cannot be true: ${why}` });
    return problems;
  }
  for (const bound of ["min", "max"] as const) {
    if (fields[bound] === undefined) {
      problems.push({
        field: bound,
        message: `is required when writable is true: the ${bound === "min" ? "lowest" : "highest"} value a write may set, in engineering units`,
      });
    }
  }
  if (typeof fields.min === "number" && typeof fields.max === "number" && fields.min > fields.max) {
    problems.push({ field: "max", message: `must be at least min (${fields.min}); got ${fields.max}` });
  }
  if (
    writeFunction !== undefined &&
    writeFunctionCodes.some((code) => code === writeFunction) &&
    !fits.some((code) => code === writeFunction)
  ) {
    problems.push({
      field: "write_function",
      message: `must be ${fits.join(" or ")} for a ${dataType} read with function_code ${fc}; got ${writeFunction}`,
    });
  }
  return problems;
}

/** The address range the register's span needs, and whether one request can read it. */
function spanProblems(
  fields: Readonly<Record<string, unknown>>,
  fc: FunctionCode,
  dataType: DataType,
  context: RegisterRulesContext,
): RegisterProblem[] {
  const { address, length } = fields;
  if (typeof address !== "number" || !Number.isInteger(address) || address < 0 || address > lastAddress) return [];
  const lengthIsValid = typeof length === "number" && Number.isInteger(length) && length >= 1;
  if (dataType === "string" && !(lengthIsValid && length <= maxStringLength)) return [];
  const span = registerSpan({ functionCode: fc, dataType, length: typeof length === "number" ? length : null });
  const what = dataType === "string" ? `a string of length ${length}` : `a ${dataType}`;
  const problems: RegisterProblem[] = [];
  if (address + span - 1 > lastAddress) {
    problems.push({
      field: "address",
      message: `must be at most ${lastAddress + 1 - span}: ${what} spans ${span} registers and the last address is ${lastAddress}; got ${address}`,
    });
  }
  const max = context.maxRegistersPerRequest;
  if (!functionCodeTables[fc].bits && span > max) {
    problems.push({
      field: dataType === "string" ? "length" : "data_type",
      message: `${what} spans ${span} registers, but this device reads at most ${max} per request (max_registers_per_request)`,
      kind: "request",
      span,
    });
  }
  return problems;
}
