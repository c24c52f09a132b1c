/**
 * inepro Metering PRO380-Mod, three-phase MID energy meter, Modbus RTU.
 *
 * Source: inepro Metering, "PRO380 user manual" V2.18, Modbus register table: holding
 * registers (function code 03), IEEE 754 float32 values high word first; power in kW,
 * energy in kWh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const ineproPro380: DeviceTemplate = {
  brand: "inepro",
  model: "PRO380-Mod",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "PRO380 user manual, Modbus register table",
    version: "V2.18",
    url: "https://ineprometering.com/wp-content/uploads/2018/09/PRO380-user-manual-V2-18.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/inepro.go",
  },
  notes: "Default 9600 baud, 8 data bits, even parity, 1 stop bit; address from the meter's menu.",
  registers: [
    float("voltage_l1", 0x5002, "V", null, "L1 voltage"),
    float("voltage_l2", 0x5004, "V", null, "L2 voltage"),
    float("voltage_l3", 0x5006, "V", null, "L3 voltage"),
    float("frequency", 0x5008, "Hz", null, "Grid frequency"),
    float("current_l1", 0x500c, "A", null, "L1 current"),
    float("current_l2", 0x500e, "A", null, "L2 current"),
    float("current_l3", 0x5010, "A", null, "L3 current"),
    float("active_power", 0x5012, "kW", null, "Total active power"),
    float("reactive_power", 0x501a, "kvar", null, "Total reactive power"),
    float("apparent_power", 0x5022, "kVA", null, "Total apparent power"),
    float("power_factor", 0x502a, null, null, "Power factor"),
    float("energy_total", 0x6000, "kWh", null, "Total active energy"),
    float("energy_import", 0x600c, "kWh", null, "Forward (imported) active energy"),
    float("energy_export", 0x6018, "kWh", null, "Reverse (exported) active energy"),
  ],
  examples: {
    voltage_l1: { words: [0x4366, 0x6666], value: 230.4 },
    voltage_l2: { words: [0x4366, 0xe666], value: 230.9 },
    voltage_l3: { words: [0x4367, 0x6666], value: 231.4 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    current_l1: { words: [0x40e4, 0x0000], value: 7.125 },
    current_l2: { words: [0x40f4, 0x0000], value: 7.625 },
    current_l3: { words: [0x4102, 0x0000], value: 8.125 },
    active_power: { words: [0x40de, 0x978d], value: 6.956 },
    reactive_power: { words: [0x4088, 0x0000], value: 4.25 },
    apparent_power: { words: [0x40b9, 0x999a], value: 5.8 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    energy_total: { words: [0x4640, 0xfc66], value: 12351.1 },
    energy_import: { words: [0x4640, 0xfe66], value: 12351.6 },
    energy_export: { words: [0x4641, 0x0066], value: 12352.1 },
  },
};
