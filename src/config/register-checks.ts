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

export function checkRegister(check: RegisterCheck): void {
  const { register, devicePath, report } = check;
  const entry = register.entry;
  // A template register the file leaves alone has no place in the file: its problems go to `template`.
  const say = (field: RegisterField, message: string) =>
    entry === undefined
      ? report([...devicePath, "template"], `template register "${register.name}": ${field} ${message}`)
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
