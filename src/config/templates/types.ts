/**
 * A device template: the register map of one brand and model, as its vendor
 * publishes it. A device that names a template gets all of these registers; the
 * file may override, extend and exclude them (see docs/config.md).
 */
import type { ByteOrder, DataType, FunctionCode } from "../../modbus/register-model.ts";

export interface TemplateRegister {
  /** snake_case, unique within the template: the name a file uses to override or exclude it. */
  name: string;
  /** Protocol address, 0-based (what goes in the request PDU), not the vendor's 1-based "register number". */
  address: number;
  functionCode: FunctionCode;
  dataType: DataType;
  /** Left out: the template's byteOrder. */
  byteOrder?: ByteOrder;
  /** For bool on function codes 3/4: the bit of the 16-bit register (0 = least significant). */
  bit?: number;
  /** For string: its length in registers. */
  length?: number;
  unit: string | null;
  /** The raw value is multiplied by it; null for none. */
  scaleFactor: number | null;
  /** The template register holding this one's scale exponent (value = raw x 10^sf; config `scale_factor_register`). */
  scaleFactorRegister?: string;
  /** The raw value the vendor documents as "no value" (config `not_implemented`). */
  notImplemented?: number;
  description: string;
  /** A setpoint the vendor documents as writable. Default false. */
  writable?: boolean;
  /** For a writable register: the range the vendor documents, in engineering units. */
  min?: number;
  max?: number;
}

/**
 * One reading of a register: the words as they arrive on the wire (the document's own
 * example, or a value written in the document's scaling and word order) and the value
 * they decode to in the register's unit (raw x scaleFactor), text for a string.
 */
export interface RegisterExample {
  words: readonly number[];
  value: number | string;
  /**
   * Where the document itself gives this reading (a worked example, a sample answer, a
   * value table), as its section, table or page. Left out: a value written in the
   * document's own scaling and word order.
   */
  fromDocument?: string;
}

/** The manufacturer's document a template's registers come from: every register is in it. */
export interface TemplateSource {
  /** As the document's title page names it. */
  title: string;
  /** Its version, issue or document number (and date where it has no other). */
  version: string;
  /** Where it is published, when it is public. */
  url?: string;
  /** What the map was cross-checked against besides the document (peer projects' maps). */
  checkedWith?: string;
  /**
   * Where in the document every register was checked (sections, tables or pages):
   * address, function code, data type, word order, scale and unit of each.
   */
  checkedAgainst?: string;
}

export const templateKinds = [
  "energy meter",
  "PV inverter",
  "hybrid inverter",
  "battery",
  "heat pump",
  "climate controller",
] as const;
export type TemplateKind = (typeof templateKinds)[number];

export interface DeviceTemplate {
  brand: string;
  model: string;
  kind: TemplateKind;
  /** The device's default byte order: for its own registers and for registers a file adds to it. */
  byteOrder: ByteOrder;
  /** The device's default poll_interval_ms. */
  pollIntervalMs: number;
  /** The device's default max_registers_per_request, when the vendor limits reads below 125. */
  maxRegistersPerRequest?: number;
  /** The manufacturer's document the map comes from. */
  source: TemplateSource;
  /** What an installer needs to know before it reads (settings on the device, limits). */
  notes: string;
  registers: readonly TemplateRegister[];
  /**
   * How a device names itself, for `fieldhub discover`: matched against its Modbus
   * device identification (function 43/14 VendorName and ProductCode) and its SunSpec
   * common model (Mn and Md). Left out: the template's brand and model.
   */
  identify?: { vendor?: string; product?: string };
  /**
   * One example per register, by register name: what the device sends and what it means;
   * test/e2e/template-examples.test.ts serves them and reads them back through `serve`.
   */
  examples: Readonly<Record<string, RegisterExample>>;
}
