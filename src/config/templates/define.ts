/**
 * Shorthand for writing a template's registers as its document lists them: a maker for
 * one function code and data type, then one call per register at its protocol address
 * (0-based: a document that numbers registers from 1 is written `number - 1`).
 */
import type { DataType, FunctionCode } from "../../modbus/register-model.ts";
import type { TemplateRegister } from "./types.ts";

export type RegisterMaker = (
  name: string,
  address: number,
  unit: string | null,
  scaleFactor: number | null,
  description: string,
) => TemplateRegister;

/** Registers of one data type read with one function code. */
export function registersOf(functionCode: FunctionCode, dataType: Exclude<DataType, "bool" | "string">): RegisterMaker {
  return (name, address, unit, scaleFactor, description) => ({
    name,
    address,
    functionCode,
    dataType,
    unit,
    scaleFactor,
    description,
  });
}

/** The same registers, reading `raw` (as decoded) as "no value" (config `not_implemented`). */
export function noValueAt(maker: RegisterMaker, raw: number): RegisterMaker {
  return (...args) => ({ ...maker(...args), notImplemented: raw });
}

/** A text register (a nameplate) of `length` registers. */
export function textRegister(
  functionCode: 3 | 4,
  name: string,
  address: number,
  length: number,
  description: string,
): TemplateRegister {
  return { name, address, functionCode, dataType: "string", length, unit: null, scaleFactor: null, description };
}

/** A setpoint the document gives as writable, in the range it gives (engineering units). */
export function writable(register: TemplateRegister, min: number, max: number): TemplateRegister {
  return { ...register, writable: true, min, max };
}
