/**
 * Eastron SDM120-Modbus, single-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Eastron, "Eastron SDM120Modbus Smart Meter Modbus Protocol Implementation V2.4",
 * register map "Function code 04 to read input parameters" (pages 5-6). Every value is an
 * IEEE 754 float32 in two registers, high register first (section 2.1, page 3: the answer
 * 43 66 33 34 is Volts 1 = 230.2). The map numbers registers from 30001; the addresses here
 * are the hex protocol start addresses it gives beside them (30001 -> 0x0000).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm120: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM120",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 80,
  source: {
    title: "Eastron SDM120Modbus Smart Meter Modbus Protocol Implementation",
    version: "V2.4",
    url: "https://github.com/plebann/eastron_SDM_HA_integration/blob/main/docs/SDM120-MODBUS_Protocol.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm120.go",
    checkedAgainst:
      "Register map, function code 04 input parameters (pages 5-6): register number, hex start address, length 4 bytes, Float, units of each; section 2.1 Read Input Registers (page 3): high register first; holding registers 40019/40029 (page 7) for the factory settings",
  },
  notes:
    "Factory settings: 2400 baud, 8 data bits, no parity, 1 stop bit, slave id 1 (holding registers 40019, 40021, 40029, or the meter's menu). Read with function code 04, always in register pairs (an odd start or count is answered with an error). Energy total (30343) follows the measurement mode, import + export by default.",
  registers: [
    float("voltage", 0x0000, "V", null, "Line to neutral voltage"),
    float("current", 0x0006, "A", null, "Current"),
    float("active_power", 0x000c, "W", null, "Active power"),
    float("apparent_power", 0x0012, "VA", null, "Apparent power"),
    float("reactive_power", 0x0018, "var", null, "Reactive power"),
    float("power_factor", 0x001e, null, null, "Power factor"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltage"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("reactive_energy_import", 0x004c, "kvarh", null, "Total imported reactive energy"),
    float("reactive_energy_export", 0x004e, "kvarh", null, "Total exported reactive energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy (import + export in the default measurement mode)"),
  ],
  examples: {
    voltage: {
      words: [0x4366, 0x3334],
      value: 230.20001,
      fromDocument: "section 2.1 Read Input Registers, page 3 (Volts 1 = 230.2)",
    },
    current: { words: [0x40b4, 0x0000], value: 5.625 },
    active_power: { words: [0x449a, 0x7000], value: 1235.5 },
    apparent_power: { words: [0x44a2, 0xb666], value: 1301.7 },
    reactive_power: { words: [0xc350, 0x4ccd], value: -208.3 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4640, 0xf466], value: 12349.1 },
    energy_export: { words: [0x4640, 0xf666], value: 12349.6 },
    reactive_energy_import: { words: [0x43a3, 0x199a], value: 326.2 },
    reactive_energy_export: { words: [0x43a3, 0x599a], value: 326.7 },
    energy_total: { words: [0x4640, 0xfc66], value: 12351.1 },
  },
};
