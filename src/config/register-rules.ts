/**
 * What one register needs, given its data type and function code: bit and length where
 * they mean something (and only there), bool for coils and discrete inputs, an address
 * range its span fits in, and a span one request can read. Runs on a resolved register
 * (device-registers.ts), so a template register with the file's overrides is checked as
 * the whole it will be polled as.
 */
import { dataTypes, type FunctionCode, functionCodes, registerSpan } from "../lib/register-map.ts";
import type { ResolvedRegister } from "./device-registers.ts";
import type { Path } from "./problems.ts";
import { didYouMean } from "./suggest.ts";
import { type DeviceTemplate, templateLabel } from "./templates/index.ts";
import { describeValue } from "./values.ts";

type Report = (path: Path, message: string) => void;

export interface RegisterCheck {
  register: ResolvedRegister;
  devicePath: Path;
  /** The device's template, when the file names one the library has. */
  template: DeviceTemplate | undefined;
  /** The device names a template the library does not have: an entry may be an override, so nothing is required. */
  templateUnknown: boolean;
  /** The device's max_registers_per_request in effect, and whether the file wrote it. */
  maxRegistersPerRequest: { value: number; written: boolean };
  report: Report;
}

const lastAddress = 65535;

export function checkRegister(check: RegisterCheck): void {
  const { register, devicePath, report } = check;
  const r = register.record;
  const entry = register.entry;
  // A template register the file leaves alone has no place in the file: its problems go to `template`.
  const at = (field: string): Path => (entry === undefined ? [...devicePath, "template"] : [...entry.path, field]);
  const say = (field: string, message: string) =>
    report(at(field), entry === undefined ? `template register "${register.name}": ${field} ${message}` : message);

  const fc = r.function_code === undefined ? 3 : functionCodes.find((code) => code === r.function_code);
  const dataType = dataTypes.find((type) => type === r.data_type);
  const isNew = entry !== undefined && register.fromTemplate === undefined && !check.templateUnknown;
  const bitsTable = fc === 1 || fc === 2;

  if (isNew && r.address === undefined) say("address", `is required${newRegisterHint(register, check.template)}`);
  if (isNew && r.data_type === undefined) {
    say(
      "data_type",
      bitsTable
        ? `is required: function_code ${fc} reads ${tableName(fc)}, single bits, so write data_type: bool`
        : `is required${newRegisterHint(register, check.template)}`,
    );
  }
  if (bitsTable && dataType !== undefined && dataType !== "bool") {
    say(
      "data_type",
      `must be bool when function_code is ${fc} (${tableName(fc)} are single bits); got ${describeValue(dataType)}`,
    );
  }

  if (fc !== undefined && dataType !== undefined) {
    const needsBit = dataType === "bool" && !bitsTable;
    if (needsBit && r.bit === undefined) {
      say(
        "bit",
        `is required when data_type is bool on function_code ${fc}: which bit of the 16-bit register to read (0 = least significant .. 15)`,
      );
    } else if (!needsBit && r.bit !== undefined && !(bitsTable && dataType !== "bool")) {
      say(
        "bit",
        bitsTable
          ? `is only allowed when data_type is bool on function_code 3 or 4 (function_code ${fc} reads single bits already)`
          : "is only allowed when data_type is bool on function_code 3 or 4",
      );
    }
  }

  if (dataType === "string" && !bitsTable && r.length === undefined) {
    say("length", "is required when data_type is string: its length in registers, two characters each (1 to 123)");
  } else if (dataType !== undefined && dataType !== "string" && r.length !== undefined) {
    say("length", "is only allowed when data_type is string");
  }

  if (r.scale_factor === 0) say("scale_factor", "must not be 0 (leave it out for no scaling)");

  checkSpan(check, fc, dataType, say);
}

function checkSpan(
  check: RegisterCheck,
  fc: FunctionCode | undefined,
  dataType: (typeof dataTypes)[number] | undefined,
  say: (field: string, message: string) => void,
): void {
  const r = check.register.record;
  const address = r.address;
  const length = r.length;
  if (fc === undefined || dataType === undefined) return;
  if (typeof address !== "number" || !Number.isInteger(address) || address < 0 || address > lastAddress) return;
  if (
    dataType === "string" &&
    !(typeof length === "number" && Number.isInteger(length) && length >= 1 && length <= 123)
  ) {
    return;
  }
  const span = registerSpan({
    functionCode: fc,
    dataType,
    length: typeof length === "number" ? length : null,
  });
  const what = dataType === "string" ? `a string of length ${length}` : `a ${dataType}`;
  if (address + span - 1 > lastAddress) {
    say(
      "address",
      `must be at most ${lastAddress + 1 - span}: ${what} spans ${span} registers and the last address is ${lastAddress}; got ${address}`,
    );
  }

  const max = check.maxRegistersPerRequest;
  if (fc === 1 || fc === 2 || span <= max.value) return;
  if (check.register.entry !== undefined) {
    say(
      dataType === "string" ? "length" : "data_type",
      `${what} spans ${span} registers, but this device reads at most ${max.value} per request (max_registers_per_request)`,
    );
  } else if (max.written) {
    check.report(
      [...check.devicePath, "max_registers_per_request"],
      `must be at least ${span}: template register "${check.register.name}" spans ${span} registers (or exclude that register); got ${max.value}`,
    );
  } else {
    say("length", `spans ${span} registers, but the template reads at most ${max.value} per request`);
  }
}

function tableName(fc: 1 | 2): string {
  return fc === 1 ? "coils" : "discrete inputs";
}

/** On a device with a template, a register missing its address may be a misspelt override. */
function newRegisterHint(register: ResolvedRegister, template: DeviceTemplate | undefined): string {
  if (template === undefined) return "";
  const names = template.registers.map((r) => r.name);
  return ` ("${register.name}" is not a register of template ${templateLabel(template)}, so it is a new register${didYouMean(register.name, names).replace(/^ \(/, "; ").replace(/\)$/, "")})`;
}
