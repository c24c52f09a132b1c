/**
 * One register's fields, checked where the file writes them: the Modbus layer decides
 * what a register needs (modbus/register-rules.ts); this puts each answer at its path
 * and says, for a device with a template, why a register counts as new and what to do
 * when a template register does not fit one request. Runs on a resolved register
 * (device-registers.ts), so a template register with the file's overrides is checked as
 * the whole it will be polled as.
 */
import { didYouMean } from "../lib/problem-wording.ts";
import { type RegisterField, registerProblems } from "../modbus/register-rules.ts";
import type { ResolvedRegister } from "./device-registers.ts";
import type { Path } from "./problems.ts";
import type { Report } from "./registries.ts";
import { type DeviceTemplate, templateLabel } from "./templates/index.ts";

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

/**
 * `scale_factor_register` names a register of the same device read as int16 from
 * function code 3 or 4, which is not itself scaled by another (so no chain and no
 * cycle: value = raw x 10^sf with sf read in the same cycle, docs/polling.md).
 */
export function checkScaleFactorRegister(
  register: ResolvedRegister,
  byName: ReadonlyMap<string, ResolvedRegister>,
  devicePath: Path,
  report: Report,
): void {
  const named = register.record.scale_factor_register;
  if (typeof named !== "string" || named === "") return;
  const say = (message: string) =>
    register.entry === undefined
      ? report(
          [...devicePath, register.fromSunSpec === undefined ? "template" : "sunspec"],
          `register "${register.name}": scale_factor_register ${message}`,
        )
      : report([...register.entry.path, "scale_factor_register"], message);
  if (named === register.name) {
    say("names this register itself; it must name the register holding the scale exponent");
    return;
  }
  const target = byName.get(named);
  if (target === undefined) {
    say(`names no register of this device: "${named}"${didYouMean(named, [...byName.keys()])}`);
    return;
  }
  const { data_type: dataType, function_code: functionCode } = target.record;
  if (dataType !== "int16" || (functionCode !== undefined && functionCode !== 3 && functionCode !== 4)) {
    say(
      `must name a signed 16-bit register (data_type int16, function_code 3 or 4): "${named}" is ${JSON.stringify(dataType)} on function_code ${functionCode ?? 3}`,
    );
    return;
  }
  const next = target.record.scale_factor_register;
  if (next !== undefined) {
    say(
      `names "${named}", which is scaled by "${String(next)}" itself: a scale-factor register must not have a scale_factor_register`,
    );
  }
}

export function checkRegister(check: RegisterCheck): void {
  const { register, devicePath, report } = check;
  const entry = register.entry;
  // A template register the file leaves alone has no place in the file: its problems go to `template`.
  const say = (field: RegisterField, message: string) =>
    entry === undefined
      ? report(
          [...devicePath, register.fromSunSpec === undefined ? "template" : "sunspec"],
          `${register.fromSunSpec === undefined ? "template" : "SunSpec"} register "${register.name}": ${field} ${message}`,
        )
      : report([...entry.path, field], message);

  const isNew = entry !== undefined && register.fromTemplate === undefined && !check.templateUnknown;
  const max = check.maxRegistersPerRequest;
  for (const problem of registerProblems(register.record, { isNew, maxRegistersPerRequest: max.value })) {
    if (problem.kind === "required") {
      say(problem.field, `${problem.message}${newRegisterHint(register, check.template)}`);
    } else if (problem.kind === "request" && entry === undefined && max.written) {
      report(
        [...devicePath, "max_registers_per_request"],
        `must be at least ${problem.span}: template register "${register.name}" spans ${problem.span} registers (or exclude that register); got ${max.value}`,
      );
    } else if (problem.kind === "request" && entry === undefined) {
      say("length", `spans ${problem.span} registers, but the template reads at most ${max.value} per request`);
    } else {
      say(problem.field, problem.message);
    }
  }
}

/** On a device with a template, a register missing its address may be a misspelt override. */
function newRegisterHint(register: ResolvedRegister, template: DeviceTemplate | undefined): string {
  if (template === undefined) return "";
  const names = template.registers.map((r) => r.name);
  return ` ("${register.name}" is not a register of template ${templateLabel(template)}, so it is a new register${didYouMean(register.name, names).replace(/^ \(/, "; ").replace(/\)$/, "")})`;
}
