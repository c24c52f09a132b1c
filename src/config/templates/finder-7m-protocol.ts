/**
 * What the Finder 7M.24 and 7M.38 templates share: one Finder document covers both meters
 * ("MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38", VI-2021, rev. X-2021). Input registers
 * (function code 04) are numbered from the memory reference 30000 (register 32500 is
 * protocol address 2500, as the document's own request 00 6B reads 30107); T_float values
 * are IEEE 754 single precision, high word first (data types table: 123.45 is stored as
 * 42F6 E666). Energy counters n1-n4 count what holding registers 40421-40436 set them to;
 * the document gives their units (Wh, varh, Wh, varh), not their defaults.
 */
import { registersOf } from "./define.ts";
import type { RegisterExample, TemplateRegister, TemplateSource } from "./types.ts";

export const finder7mFloat = registersOf(4, "float32");

export const finder7mDocument: Pick<TemplateSource, "title" | "version" | "url"> = {
  title: "MODBUS COMMUNICATION PROTOCOL 7M24 - 7M38",
  version: "VI-2021, rev. X-2021 (Modbus-7M24-7M38_v2_30062021)",
  url: "https://cdn.findernet.com/app/uploads/2021/09/20090052/Modbus-7M24-7M38_v2_30062021.pdf",
};

export const finder7mNotes =
  "Set the port's baud rate, stop bits and parity on the meter or in holding registers 40203-40205 (Port 1). Energies are in Wh and varh. What energy counters n1-n4 count (active or reactive, which quadrants, which tariffs) is set on the meter or in holding registers 40421-40436: check them before reading n1/n3 as import/export.";

/** The MEASUREMENTS (IEEE 754) table's system totals, at the same addresses in both parts. */
export const finder7mTotals: readonly TemplateRegister[] = [
  finder7mFloat("active_power", 2536, "W", null, "Active Power Total (Pt)"),
  finder7mFloat("reactive_power", 2544, "var", null, "Reactive Power Total (Qt)"),
  finder7mFloat("apparent_power", 2552, "VA", null, "Apparent Power Total (St)"),
  finder7mFloat("power_factor", 2560, null, null, "Power Factor Total (PFt)"),
  finder7mFloat("frequency", 2584, "Hz", null, "Frequency"),
];

/** The ENERGY table's T_float counters n1-n4 (32752-32759), the same in both parts. */
export const finder7mEnergyCounters: readonly TemplateRegister[] = [
  finder7mFloat("energy_counter_n1", 2752, "Wh", null, "Energy Counter n1 (Wh; set in holding registers 40421-40424)"),
  finder7mFloat(
    "energy_counter_n2",
    2754,
    "varh",
    null,
    "Energy Counter n2 (varh; set in holding registers 40425-40428)",
  ),
  finder7mFloat("energy_counter_n3", 2756, "Wh", null, "Energy Counter n3 (Wh; set in holding registers 40429-40432)"),
  finder7mFloat(
    "energy_counter_n4",
    2758,
    "varh",
    null,
    "Energy Counter n4 (varh; set in holding registers 40433-40436)",
  ),
];

/** The data types table's own T_float example (page 7M 51), served as a reactive power. */
export const finder7mFloatExample: RegisterExample = {
  words: [0x42f6, 0xe666],
  value: 123.45,
  fromDocument: "data types table, T_float, page 7M 51 (123.45 stored as 42F6 E666)",
};
