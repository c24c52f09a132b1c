/**
 * What a cycle's raw values mean beyond their decoding (docs/polling.md, "Not-implemented
 * values" and "Scale factors read from the device"): a register's `not_implemented` raw
 * value (SunSpec's per point type) is no value, and a register scaled by another register
 * of the device gets that register's scale exponent as read in the same cycle.
 */
import type { PolledValue } from "../lib/polled-value.ts";
import type { PolledRegister } from "./polling-config.ts";

/** SunSpec's "not implemented" for a scale factor (0x8000 as int16), whatever the register's own not_implemented says. */
const scaleFactorNotImplemented = -0x8000;

/** The factor 10^exponent as a double that scalerFor (lib/register-scaling.ts) recognises as a power of ten. */
export function powerOfTen(exponent: number): number {
  return exponent >= 0 ? 10 ** exponent : 1 / 10 ** -exponent;
}

/**
 * Applies not-implemented values and scale-factor registers to one cycle's values, in
 * place: a not-implemented raw value becomes null; a value whose scale factor is not
 * implemented becomes null; a value whose scale-factor register was not read in this
 * cycle (its request failed) is left out, since no value can be told for it.
 */
export function settleValues(values: PolledValue[], registers: ReadonlyMap<string, PolledRegister>): PolledValue[] {
  let scaled = false;
  for (const value of values) {
    const register = registers.get(value.registerId);
    if (register === undefined) continue;
    if (register.notImplemented !== undefined && value.raw === register.notImplemented) value.raw = null;
    if (register.scaleFactorRegisterId !== undefined) scaled = true;
  }
  if (!scaled) return values;
  const exponents = new Map<string, number | null>();
  for (const value of values) exponents.set(value.registerId, value.raw);
  return values.filter((value) => {
    const scaleId = registers.get(value.registerId)?.scaleFactorRegisterId;
    if (scaleId === undefined) return true;
    const exponent = exponents.get(scaleId);
    if (exponent === undefined) return false;
    if (exponent === null || exponent === scaleFactorNotImplemented) {
      value.raw = null;
      return true;
    }
    value.scaleFactor = powerOfTen(exponent);
    return true;
  });
}
