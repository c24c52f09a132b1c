/**
 * Finder 7M.24 (7M.24.8.230.0210 and the other Modbus variants), single-phase MID energy
 * meter, Modbus RTU.
 *
 * Source: Finder, "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38", part "PROTOCOL 7M24": the
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

export const finder7m24: DeviceTemplate = {
  brand: "Finder",
  model: "7M.24",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    ...finder7mDocument,
    checkedAgainst:
      "Part PROTOCOL 7M24: MEASUREMENTS (IEEE 754) table (page 7M 7: U1, I1, Pt, Qt, St, PFt, frequency 32584) and ENERGY table (page 7M 8: Energy Counter n1-n4, Wh/varh), function code 4, T_float; request-response example (page 7M 2: 00 6B = 30107) for the 30000 memory reference; data types table T_float (page 7M 51); MODBUS SETTINGS Port 1 (page 7M 11) and Energy Counter n1-n4 holding registers (pages 7M 12-13)",
  },
  notes: finder7mNotes,
  registers: [
    float("voltage", 2500, "V", null, "U1"),
    float("current", 2516, "A", null, "I1"),
    ...finder7mTotals,
    ...finder7mEnergyCounters,
  ],
  examples: {
    voltage: { words: [0x4366, 0x6666], value: 230.4 },
    current: { words: [0x40d4, 0x0000], value: 6.625 },
    active_power: { words: [0x44bf, 0xe000], value: 1535 },
    reactive_power: finder7mFloatExample,
    apparent_power: { words: [0x44c0, 0xe000], value: 1543 },
    power_factor: { words: [0x3f7e, 0xb852], value: 0.995 },
    frequency: { words: [0x4248, 0x0000], value: 50 },
    energy_counter_n1: { words: [0x4a12, 0xd680], value: 2405792 },
    energy_counter_n2: { words: [0x4640, 0x0000], value: 12288 },
    energy_counter_n3: { words: [0x4816, 0x1c00], value: 153712 },
    energy_counter_n4: { words: [0x4550, 0x0000], value: 3328 },
  },
};
