/**
 * WAGO 879-3000 / 879-3020 / 879-3040, three-phase MID energy meters with Modbus RTU.
 *
 * Source: WAGO, product manual of the 879-30x0 energy meters (WAGO document 5937710),
 * Modbus register table: holding registers (function code 03), IEEE 754 float32 values
 * high word first; power in kW, energy in kWh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const wago87930x0: DeviceTemplate = {
  brand: "WAGO",
  model: "879-30x0",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "879-3000/-3020/-3040 energy meter product manual, Modbus register table",
    version: "WAGO document 5937710",
    url: "https://www.wago.com/de-en/d/5937710",
    checkedWith: "volkszaehler/mbmd meters/rs485/wago87930.go",
  },
  notes: "Set address and baud rate on the meter. Power registers are in kW.",
  registers: [
    float("voltage_l1", 0x5002, "V", null, "L1 voltage"),
    float("voltage_l2", 0x5004, "V", null, "L2 voltage"),
    float("voltage_l3", 0x5006, "V", null, "L3 voltage"),
    float("frequency", 0x5008, "Hz", null, "Grid frequency"),
    float("current_l1", 0x500c, "A", null, "L1 current"),
    float("current_l2", 0x500e, "A", null, "L2 current"),
    float("current_l3", 0x5010, "A", null, "L3 current"),
    float("active_power", 0x5012, "kW", null, "Total active power"),
    float("power_l1", 0x5014, "kW", null, "L1 active power"),
    float("power_l2", 0x5016, "kW", null, "L2 active power"),
    float("power_l3", 0x5018, "kW", null, "L3 active power"),
    float("power_factor", 0x502a, null, null, "Power factor"),
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
    power_l1: { words: [0x40ee, 0x978d], value: 7.456 },
    power_l2: { words: [0x40fe, 0x978d], value: 7.956 },
    power_l3: { words: [0x4107, 0x4bc7], value: 8.456 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    energy_import: { words: [0x4640, 0xfe66], value: 12351.6 },
    energy_export: { words: [0x4641, 0x0066], value: 12352.1 },
  },
};
