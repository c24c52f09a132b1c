/**
 * Finder 7M.38 (7M.38.8.400.0212 and the other Modbus variants), three-phase MID energy
 * meter, Modbus RTU.
 *
 * Source: Finder, "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38", part "PROTOCOL 7M38": the
 * MEASUREMENTS (IEEE 754) and ENERGY tables (see finder-7m-protocol.ts for the numbering,
 * the float word order and the energy counters).
 */
import {
  finder7mDocument,
  finder7mEnergyCounters,
  finder7mFloatExample,
  finder7mNotes,
  finder7mTotals,
  finder7mFloat as float,
} from "./finder-7m-protocol.ts";
import type { DeviceTemplate } from "./types.ts";

export const finder7m38: DeviceTemplate = {
  brand: "Finder",
  model: "7M.38",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    ...finder7mDocument,
    checkedWith: "volkszaehler/mbmd meters/rs485/finder7m38.go",
    checkedAgainst:
      "Part PROTOCOL 7M38: MEASUREMENTS (IEEE 754) table (pages 7M 29-31: U1-U3, I1-I3, P1-P3, Pt, Qt, St, PFt, frequency 32584) and ENERGY table (page 7M 32: Energy Counter n1-n4, Wh/varh), function code 4, T_float; request-response example (page 7M 2: 00 6B = 30107) for the 30000 memory reference; data types table T_float (page 7M 51); MODBUS SETTINGS Port 1 (page 7M 39) and Energy Counter n1-n4 holding registers (pages 7M 41-42)",
  },
  notes: finder7mNotes,
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
    ...finder7mTotals,
    ...finder7mEnergyCounters,
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
    reactive_power: finder7mFloatExample,
    apparent_power: { words: [0x44a3, 0x3666], value: 1305.7 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_counter_n1: { words: [0x4971, 0x20d0], value: 987661 },
    energy_counter_n2: { words: [0x4118, 0x0000], value: 9.5 },
    energy_counter_n3: { words: [0x4971, 0x20e0], value: 987662 },
    energy_counter_n4: { words: [0x4128, 0x0000], value: 10.5 },
  },
};
