/**
 * Eastron SDM230-Modbus, single-phase DIN-rail energy meter (MID), Modbus RTU.
 *
 * Source: Eastron, "Eastron SDM230Modbus Smart Meter Modbus Protocol Implementation V1.2",
 * section 1.2 "Input register" (function code 04, pages 2-3): IEEE 754 float32 values,
 * most significant register first (section 1.1, the default "Register Order"; section
 * 3.8.1, page 17: the answer 43 66 33 34 is Volts 1 = 230.2), at the hex protocol start
 * addresses the table gives beside the 3xxxx register numbers (30001 -> 0x0000).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm230: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM230",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  // "A maximum of 40 values in a single transaction ... 80" registers (section 1.1).
  maxRegistersPerRequest: 80,
  source: {
    title: "Eastron SDM230Modbus Smart Meter Modbus Protocol Implementation",
    version: "V1.2",
    url: "https://github.com/dmatscheko/modbus_connect/blob/main/support/devicedocs/eastron-sdm230/eastron-SDM230Modbus-Protocol-V1.2.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm230.go",
    checkedAgainst:
      "Section 1.2 SDM230-Modbus Input Register table (pages 2-3): register number, hex start address and units of each; section 1.1 data format (float32, most significant register first, at most 40 values a request); section 3.7 IEEE floating point format (page 15) and 3.8.1 Read Input Registers (page 17); section 1.3 holding registers 40019, 40021, 40029 and the measurement mode (pages 4-5) for the factory settings",
  },
  notes:
    "Factory settings (section 1.3): 2400 baud, 8 data bits, no parity, 1 stop bit, slave id 1. Read with function code 04, always in register pairs, at most 40 values a request. Total active energy (30343) follows the measurement mode, import + export by default.",
  registers: [
    float("voltage", 0x0000, "V", null, "Line to neutral voltage"),
    float("current", 0x0006, "A", null, "Current"),
    float("active_power", 0x000c, "W", null, "Active power"),
    float("apparent_power", 0x0012, "VA", null, "Apparent power"),
    float("reactive_power", 0x0018, "var", null, "Reactive power"),
    float("power_factor", 0x001e, null, null, "Power factor"),
    float("phase_angle", 0x0024, "°", null, "Phase angle"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltage"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy (import + export in the default measurement mode)"),
  ],
  examples: {
    voltage: {
      words: [0x4366, 0x3334],
      value: 230.20001,
      fromDocument: "section 3.8.1 Read Input Registers, page 17 (Volts 1 = 230.2)",
    },
    current: { words: [0x40b4, 0x0000], value: 5.625 },
    active_power: { words: [0x449a, 0x7000], value: 1235.5 },
    apparent_power: { words: [0x44a2, 0xb666], value: 1301.7 },
    reactive_power: { words: [0xc350, 0x4ccd], value: -208.3 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    phase_angle: { words: [0xc118, 0x0000], value: -9.5 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4640, 0xf666], value: 12349.6 },
    energy_export: { words: [0x4640, 0xf866], value: 12350.1 },
    energy_total: { words: [0x4640, 0xfa66], value: 12350.6 },
  },
};
