/**
 * Finder 7M.38 (7M.38.8.400.0212 and the other Modbus variants), three-phase MID energy
 * meter, Modbus RTU.
 *
 * Source: Finder, "Modbus communication protocol 7M.24 / 7M.38", version 2 of 30.06.2021:
 * input registers (function code 04), every value an IEEE 754 float32, high word first;
 * energy counters in Wh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const finder7m38: DeviceTemplate = {
  brand: "Finder",
  model: "7M.38",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "Modbus communication protocol 7M.24 / 7M.38",
    version: "v2, 30.06.2021",
    url: "https://cdn.findernet.com/app/uploads/2021/09/20090052/Modbus-7M24-7M38_v2_30062021.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/finder7m38.go",
  },
  notes: "Default 19200 baud, 8 data bits, even parity, 1 stop bit (set on the meter). Energies are in Wh.",
  registers: [
    float("voltage_l1", 2500, "V", null, "Voltage L1-N"),
    float("voltage_l2", 2502, "V", null, "Voltage L2-N"),
    float("voltage_l3", 2504, "V", null, "Voltage L3-N"),
    float("current_l1", 2516, "A", null, "Current L1"),
    float("current_l2", 2518, "A", null, "Current L2"),
    float("current_l3", 2520, "A", null, "Current L3"),
    float("power_l1", 2530, "W", null, "Active power L1"),
    float("power_l2", 2532, "W", null, "Active power L2"),
    float("power_l3", 2534, "W", null, "Active power L3"),
    float("active_power", 2536, "W", null, "Active power, total"),
    float("reactive_power", 2544, "var", null, "Reactive power, total"),
    float("apparent_power", 2552, "VA", null, "Apparent power, total"),
    float("power_factor", 2560, null, null, "Power factor, total"),
    float("frequency", 2584, "Hz", null, "Frequency"),
    float("energy_import", 2752, "Wh", null, "Active energy import, total"),
    float("reactive_energy_import", 2754, "varh", null, "Reactive energy import, total"),
    float("energy_export", 2756, "Wh", null, "Active energy export, total"),
    float("reactive_energy_export", 2758, "varh", null, "Reactive energy export, total"),
  ],
  examples: {
    voltage_l1: { words: [0x4366, 0x6666], value: 230.4 },
    voltage_l2: { words: [0x4366, 0xe666], value: 230.9 },
    voltage_l3: { words: [0x4367, 0x6666], value: 231.4 },
    current_l1: { words: [0x40d4, 0x0000], value: 6.625 },
    current_l2: { words: [0x40e4, 0x0000], value: 7.125 },
    current_l3: { words: [0x40f4, 0x0000], value: 7.625 },
    power_l1: { words: [0x449a, 0xb000], value: 1237.5 },
    power_l2: { words: [0x449a, 0xc000], value: 1238 },
    power_l3: { words: [0x449a, 0xd000], value: 1238.5 },
    active_power: { words: [0x449a, 0xe000], value: 1239 },
    reactive_power: { words: [0xc34d, 0x4ccd], value: -205.3 },
    apparent_power: { words: [0x44a3, 0x3666], value: 1305.7 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4971, 0x20d0], value: 987661 },
    reactive_energy_import: { words: [0x4118, 0x0000], value: 9.5 },
    energy_export: { words: [0x4971, 0x20e0], value: 987662 },
    reactive_energy_export: { words: [0x4128, 0x0000], value: 10.5 },
  },
};
