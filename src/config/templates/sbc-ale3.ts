/**
 * Saia Burgess Controls ALE3 (ALE3D5FD10C3A00 and the other ALE3 Modbus variants),
 * three-phase MID energy meter, Modbus RTU.
 *
 * Source: Saia Burgess Controls, "Energy meter ALE3 with integrated Serial Modbus
 * interface", data sheet, document 26/527 ENG, issue 01 (file 26-527_ENG_DS_EnergyMeter-ALE3-
 * with-Modbus-01), "Registers" table (page 6 on): the register numbers it gives are the
 * protocol addresses (holding registers, function code 03); "for double registers (4-5,
 * 16-17, 28-29, 30-31, 32-33, 34-35) the high register is sent first"; voltage in V, current
 * in 0.1 A, power in 0.01 kW, energy in 0.01 kWh. Four examples are the table's own: WT1
 * total High = 13, Low = 60'383, 13 x 65'536 + 60'383 = 912'351 = 9123.51 kWh (register
 * 28-29); 230 = 230 V (36); 314 = 31.4 A (37); 1545 = 15.45 kW (38). The other registers
 * keep distinct values in the same scaling (the table repeats the 9123.51 kWh example for
 * the other counters), so a swapped address shows.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");
const uint32 = registersOf(3, "uint32");

export const sbcAle3: DeviceTemplate = {
  brand: "Saia Burgess Controls",
  model: "ALE3",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "Energy meter ALE3 with integrated Serial Modbus interface, datasheet, register table",
    version: "data sheet 26/527 ENG, issue 01",
    url: "https://sbc-support.com/de/produkt-index/axx-energiezaehler/axx3-3-ph-modbus/",
    checkedWith: "volkszaehler/mbmd meters/rs485/sbc.go",
    checkedAgainst:
      "Registers table, page 6 on (read in the manualshelf.com copy of the ALE3D5FD10C3A00 datasheet, page 6): double registers high register first, partial counters reset by writing 0 to both registers; registers 24 (Modbus address 1-247), 28-29 WT1 total and 32-33 WT2 total (10^-2 kWh), 36-38, 41-43 and 46-48 URMS (V), IRMS (10^-1 A) and PRMS (10^-2 kW) of phases 1-3, 51 PRMS total (10^-2 kW)",
  },
  notes:
    "Set the Modbus address (1-247) on the meter or in register 24. Partial counters (30-31, 34-35) reset when 0 is written to both registers in one message; they are left out here.",
  registers: [
    uint32("energy_tariff1", 28, "kWh", 0.01, "WT1 total: energy total, tariff 1"),
    uint32("energy_tariff2", 32, "kWh", 0.01, "WT2 total: energy total, tariff 2"),
    uint16("voltage_l1", 36, "V", null, "URMS phase 1: effective voltage of phase 1"),
    uint16("current_l1", 37, "A", 0.1, "IRMS phase 1: effective current of phase 1"),
    uint16("power_l1", 38, "kW", 0.01, "PRMS phase 1: effective active power of phase 1"),
    uint16("voltage_l2", 41, "V", null, "URMS phase 2: effective voltage of phase 2"),
    uint16("current_l2", 42, "A", 0.1, "IRMS phase 2: effective current of phase 2"),
    uint16("power_l2", 43, "kW", 0.01, "PRMS phase 2: effective active power of phase 2"),
    uint16("voltage_l3", 46, "V", null, "URMS phase 3: effective voltage of phase 3"),
    uint16("current_l3", 47, "A", 0.1, "IRMS phase 3: effective current of phase 3"),
    uint16("power_l3", 48, "kW", 0.01, "PRMS phase 3: effective active power of phase 3"),
    uint16("active_power", 51, "kW", 0.01, "PRMS total: effective active power of all phases"),
  ],
  examples: {
    energy_tariff1: {
      words: [0x000d, 0xebdf],
      value: 9123.51,
      fromDocument: "Registers, 28-29 WT1 total: High = 13, Low = 60'383, 13 x 65'536 + 60'383 = 912'351 = 9123.51 kWh",
    },
    energy_tariff2: { words: [0x0000, 0x04e2], value: 12.5 },
    voltage_l1: { words: [0x00e6], value: 230, fromDocument: "Registers, 36 URMS phase 1: Ex: 230 = 230 V" },
    current_l1: { words: [0x013a], value: 31.4, fromDocument: "Registers, 37 IRMS phase 1: Ex: 314 = 31.4 A" },
    power_l1: { words: [0x0609], value: 15.45, fromDocument: "Registers, 38 PRMS phase 1: Ex: 1545 = 15.45 kW" },
    voltage_l2: { words: [0x00e7], value: 231 },
    current_l2: { words: [0x012e], value: 30.2 },
    power_l2: { words: [0x02b2], value: 6.9 },
    voltage_l3: { words: [0x00e5], value: 229 },
    current_l3: { words: [0x012a], value: 29.8 },
    power_l3: { words: [0x02a8], value: 6.8 },
    active_power: { words: [0x0b63], value: 29.15 },
  },
};
