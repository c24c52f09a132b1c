/**
 * Janitza B23 / B24 (B2x series), three-phase DIN-rail energy meters with Modbus RTU.
 *
 * Source: Janitza, "B23/B24 user manual" (janitza-bhb-b2x-en), Modbus address list:
 * holding registers (function code 03), IEEE 754 float32 values high word first; energy in
 * Wh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const janitzaB23: DeviceTemplate = {
  brand: "Janitza",
  model: "B23",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "B23/B24 energy meter user manual, Modbus address list",
    version: "janitza-bhb-b2x-en (current edition at janitza.de)",
    url: "https://www.janitza.de/betriebsanleitungen.html?file=files/download/manuals/current/B-Series/janitza-bhb-b2x-en.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/janitza.go",
  },
  notes: "Also for the B24 (transformer connected). Energies are in Wh.",
  registers: [
    float("voltage_l1", 0x4a38, "V", null, "Voltage L1-N"),
    float("voltage_l2", 0x4a3a, "V", null, "Voltage L2-N"),
    float("voltage_l3", 0x4a3c, "V", null, "Voltage L3-N"),
    float("current_l1", 0x4a44, "A", null, "Current L1"),
    float("current_l2", 0x4a46, "A", null, "Current L2"),
    float("current_l3", 0x4a48, "A", null, "Current L3"),
    float("power_l1", 0x4a4c, "W", null, "Active power L1"),
    float("power_l2", 0x4a4e, "W", null, "Active power L2"),
    float("power_l3", 0x4a50, "W", null, "Active power L3"),
    float("active_power", 0x4a52, "W", null, "Active power, total"),
    float("frequency", 0x4a6a, "Hz", null, "Frequency"),
    float("energy_import", 0x4a7c, "Wh", null, "Active energy import, total"),
    float("energy_export", 0x4a84, "Wh", null, "Active energy export, total"),
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
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4971, 0x20b8], value: 987659.5 },
    energy_export: { words: [0x4971, 0x20c0], value: 987660 },
  },
};
