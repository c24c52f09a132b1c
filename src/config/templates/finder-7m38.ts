/**
 * Finder 7M.38 (7M.38.8.400.0212 and the other Modbus variants), three-phase MID energy
 * meter, Modbus RTU.
 *
 * Source: Finder, "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38" (VI-2021, rev. X-2021; file
 * Modbus-7M24-7M38_v2_30062021), part "PROTOCOL 7M38": input registers (function code 04)
 * numbered from the memory reference 30000 (register 32500 is protocol address 2500, as the
 * document's own request 00 6B reads 30107), the MEASUREMENTS (IEEE 754) and ENERGY tables
 * of T_float values: IEEE 754 single precision, high word first (data types table: 123.45
 * is stored as 42F6 E666). Energy counters n1-n4 count what holding registers 40421-40436
 * set them to; the document gives their units (Wh, varh, Wh, varh), not their defaults.
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
    title: "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38",
    version: "VI-2021, rev. X-2021 (Modbus-7M24-7M38_v2_30062021)",
    url: "https://cdn.findernet.com/app/uploads/2021/09/20090052/Modbus-7M24-7M38_v2_30062021.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/finder7m38.go",
    checkedAgainst:
      "Part PROTOCOL 7M38: MEASUREMENTS (IEEE 754) table (pages 7M 29-31: U1-U3, I1-I3, P1-P3, Pt, Qt, St, PFt, frequency 32584) and ENERGY table (page 7M 32: Energy Counter n1-n4, Wh/varh), function code 4, T_float; request-response example (page 7M 2: 00 6B = 30107) for the 30000 memory reference; data types table T_float (page 7M 51); MODBUS SETTINGS Port 1 (page 7M 39) and Energy Counter n1-n4 holding registers (pages 7M 41-42)",
  },
  notes:
    "Set the port's baud rate, stop bits and parity on the meter or in holding registers 40203-40205 (Port 1). Energies are in Wh and varh. What energy counters n1-n4 count (active or reactive, which quadrants, which tariffs) is set on the meter or in holding registers 40421-40436: check them before reading n1/n3 as import/export.",
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
    float(
      "energy_counter_n1",
      2752,
      "Wh",
      null,
      "Energy Counter n1 (Wh; its quantity is set in holding registers 40421-40424)",
    ),
    float("energy_counter_n2", 2754, "varh", null, "Energy Counter n2 (varh; set in holding registers 40425-40428)"),
    float("energy_counter_n3", 2756, "Wh", null, "Energy Counter n3 (Wh; set in holding registers 40429-40432)"),
    float("energy_counter_n4", 2758, "varh", null, "Energy Counter n4 (varh; set in holding registers 40433-40436)"),
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
    reactive_power: {
      words: [0x42f6, 0xe666],
      value: 123.45,
      fromDocument: "data types table, T_float, page 7M 51 (123.45 stored as 42F6 E666)",
    },
    apparent_power: { words: [0x44a3, 0x3666], value: 1305.7 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_counter_n1: { words: [0x4971, 0x20d0], value: 987661 },
    energy_counter_n2: { words: [0x4118, 0x0000], value: 9.5 },
    energy_counter_n3: { words: [0x4971, 0x20e0], value: 987662 },
    energy_counter_n4: { words: [0x4128, 0x0000], value: 10.5 },
  },
};
