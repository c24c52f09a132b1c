/**
 * Schneider Electric iEM3255 (and the other Modbus meters of the iEM3000 series: iEM3155,
 * iEM3255, iEM3355), three-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Schneider Electric, "iEM3100 / iEM3200 / iEM3300 series energy meters, user
 * manual", chapter "Communications via Modbus RTU", Modbus register list. The list
 * gives 1-based register numbers ("3028 Voltage L1-N"); the protocol address is the
 * number minus 1. Float32 values high word first; energies INT64 in Wh. Read Device
 * Identification (43/14) answers VendorName "Schneider Electric" and, as ProductCode, the
 * commercial reference (A9MEM3255 for the iEM3255).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");
const int64 = registersOf(3, "int64");

export const schneiderIem3255: DeviceTemplate = {
  brand: "Schneider Electric",
  model: "iEM3255",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "iEM3100 / iEM3200 / iEM3300 series energy meters user manual, Modbus register list",
    version: "DOCA0005DE-12 (German edition)",
    url: "https://download.schneider-electric.com/files?p_enDocType=User+guide&p_File_Name=DOCA0005DE-12.pdf&p_Doc_Ref=DOCA0005DE",
    checkedWith: "volkszaehler/mbmd meters/rs485/iem3000.go",
    checkedAgainst:
      "chapter on communications via Modbus RS-485, Modbus register list (from page 49): register address = number - 1, function 03; meter data 3000-3004, 3010 currents, 3028-3032, 3036 voltages L-N, 3054-3060 active power, 3068 reactive and 3076 apparent power (Float32, A/V/kW/kVAR/kVA), 3110 frequency (Float32, Hz); energy 3204/3208 total active import/export and 3220/3224 total reactive import/export (INT64, Wh/VARh); Read Device Identification (VendorName, ProductCode = commercial reference, Revision)",
  },
  identify: { vendor: "Schneider Electric", product: "A9MEM3255" },
  notes:
    "Factory settings: 19200 baud, 8 data bits, even parity, 1 stop bit, slave id 1. Read with function code 03. A value the wiring does not measure reads as NaN (no value).",
  registers: [
    float("current_l1", 3000 - 1, "A", null, "Current I1"),
    float("current_l2", 3002 - 1, "A", null, "Current I2"),
    float("current_l3", 3004 - 1, "A", null, "Current I3"),
    float("current_average", 3010 - 1, "A", null, "Current average"),
    float("voltage_l1", 3028 - 1, "V", null, "Voltage L1-N"),
    float("voltage_l2", 3030 - 1, "V", null, "Voltage L2-N"),
    float("voltage_l3", 3032 - 1, "V", null, "Voltage L3-N"),
    float("voltage_ln_average", 3036 - 1, "V", null, "Average voltage L-N"),
    float("power_l1", 3054 - 1, "kW", null, "Active power phase 1"),
    float("power_l2", 3056 - 1, "kW", null, "Active power phase 2"),
    float("power_l3", 3058 - 1, "kW", null, "Active power phase 3"),
    float("active_power", 3060 - 1, "kW", null, "Total active power"),
    float("reactive_power", 3068 - 1, "kvar", null, "Total reactive power"),
    float("apparent_power", 3076 - 1, "kVA", null, "Total apparent power"),
    float("frequency", 3110 - 1, "Hz", null, "Frequency"),
    int64("energy_import", 3204 - 1, "Wh", null, "Total active energy import"),
    int64("energy_export", 3208 - 1, "Wh", null, "Total active energy export"),
    int64("reactive_energy_import", 3220 - 1, "varh", null, "Total reactive energy import"),
    int64("reactive_energy_export", 3224 - 1, "varh", null, "Total reactive energy export"),
  ],
  examples: {
    current_l1: { words: [0x40a4, 0x0000], value: 5.125 },
    current_l2: { words: [0x40b4, 0x0000], value: 5.625 },
    current_l3: { words: [0x40c4, 0x0000], value: 6.125 },
    current_average: { words: [0x40d4, 0x0000], value: 6.625 },
    voltage_l1: { words: [0x4368, 0x6666], value: 232.4 },
    voltage_l2: { words: [0x4368, 0xe666], value: 232.9 },
    voltage_l3: { words: [0x4369, 0x6666], value: 233.4 },
    voltage_ln_average: { words: [0x4369, 0xe666], value: 233.9 },
    power_l1: { words: [0x40ee, 0x978d], value: 7.456 },
    power_l2: { words: [0x40fe, 0x978d], value: 7.956 },
    power_l3: { words: [0x4107, 0x4bc7], value: 8.456 },
    active_power: { words: [0x410f, 0x4bc7], value: 8.956 },
    reactive_power: { words: [0x40c8, 0x0000], value: 6.25 },
    apparent_power: { words: [0x40f9, 0x999a], value: 7.8 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x0000, 0x0000, 0x000f, 0x1215], value: 987669 },
    energy_export: { words: [0x0000, 0x0000, 0x000f, 0x1216], value: 987670 },
    reactive_energy_import: { words: [0x0000, 0x0000, 0x0000, 0x0013], value: 19 },
    reactive_energy_export: { words: [0x0000, 0x0000, 0x0000, 0x0014], value: 20 },
  },
};
