/**
 * Finder 7M.24 (7M.24.8.230.0210 and the other Modbus variants), single-phase MID energy
 * meter, Modbus RTU.
 *
 * Source: Finder, "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38" (VI-2021, rev. X-2021; file
 * Modbus-7M24-7M38_v2_30062021), part "PROTOCOL 7M24": input registers (function code 04)
 * numbered from the memory reference 30000 (register 32500 is protocol address 2500, as the
 * document's own request 00 6B reads 30107), the MEASUREMENTS (IEEE 754) and ENERGY tables
 * of T_float values: IEEE 754 single precision, high word first (data types table: 123.45
 * is stored as 42F6 E666). Energy counters n1-n4 count what holding registers 40421-40436
 * set them to; the document gives their units (Wh, varh, Wh, varh), not their defaults.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const finder7m24: DeviceTemplate = {
  brand: "Finder",
  model: "7M.24",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38",
    version: "VI-2021, rev. X-2021 (Modbus-7M24-7M38_v2_30062021)",
    url: "https://cdn.findernet.com/app/uploads/2021/09/20090052/Modbus-7M24-7M38_v2_30062021.pdf",
    checkedAgainst:
      "Part PROTOCOL 7M24: MEASUREMENTS (IEEE 754) table (page 7M 7: U1, I1, Pt, Qt, St, PFt, frequency 32584) and ENERGY table (page 7M 8: Energy Counter n1-n4, Wh/varh), function code 4, T_float; request-response example (page 7M 2: 00 6B = 30107) for the 30000 memory reference; data types table T_float (page 7M 51); MODBUS SETTINGS Port 1 (page 7M 11) and Energy Counter n1-n4 holding registers (pages 7M 12-13)",
  },
  notes:
    "Set the port's baud rate, stop bits and parity on the meter or in holding registers 40203-40205 (Port 1). Energies are in Wh and varh. What energy counters n1-n4 count (active or reactive, which quadrants, which tariffs) is set on the meter or in holding registers 40421-40436: check them before reading n1/n3 as import/export.",
  registers: [
    float("voltage", 2500, "V", null, "U1"),
    float("current", 2516, "A", null, "I1"),
    float("active_power", 2536, "W", null, "Active Power Total (Pt)"),
    float("reactive_power", 2544, "var", null, "Reactive Power Total (Qt)"),
    float("apparent_power", 2552, "VA", null, "Apparent Power Total (St)"),
    float("power_factor", 2560, null, null, "Power Factor Total (PFt)"),
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
    voltage: { words: [0x4366, 0x6666], value: 230.4 },
    current: { words: [0x40d4, 0x0000], value: 6.625 },
    active_power: { words: [0x44bf, 0xe000], value: 1535 },
    reactive_power: {
      words: [0x42f6, 0xe666],
      value: 123.45,
      fromDocument: "data types table, T_float, page 7M 51 (123.45 stored as 42F6 E666)",
    },
    apparent_power: { words: [0x44c0, 0xe000], value: 1543 },
    power_factor: { words: [0x3f7e, 0xb852], value: 0.995 },
    frequency: { words: [0x4248, 0x0000], value: 50 },
    energy_counter_n1: { words: [0x4a12, 0xd680], value: 2405792 },
    energy_counter_n2: { words: [0x4640, 0x0000], value: 12288 },
    energy_counter_n3: { words: [0x4816, 0x1c00], value: 153712 },
    energy_counter_n4: { words: [0x4550, 0x0000], value: 3328 },
  },
};
