/**
 * Saia Burgess Controls ALE3 (ALE3D5FD10C3A00 and the other ALE3 Modbus variants),
 * three-phase MID energy meter, Modbus RTU.
 *
 * Source: Saia Burgess Controls, "Energy meter ALE3 with integrated Serial Modbus
 * interface", datasheet, register table: the register numbers it gives are the protocol
 * addresses (holding registers, function code 03); double registers are sent high word
 * first; voltage in V, current in 0.1 A, power in 0.01 kW, energy in 0.01 kWh. The
 * examples are the datasheet's own (WT1 total High = 13, Low = 60'383 = 9123.51 kWh;
 * 230 = 230 V; 314 = 31.4 A; 1545 = 15.45 kW).
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
    version: "datasheet as published on sbc-support.com (Axx3 3-ph Modbus)",
    url: "https://sbc-support.com/de/produkt-index/axx-energiezaehler/axx3-3-ph-modbus/",
    checkedWith: "volkszaehler/mbmd meters/rs485/sbc.go",
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
    energy_tariff1: { words: [0x000d, 0xebdf], value: 9123.51 },
    energy_tariff2: { words: [0x0000, 0x04e2], value: 12.5 },
    voltage_l1: { words: [0x00e6], value: 230 },
    current_l1: { words: [0x013a], value: 31.4 },
    power_l1: { words: [0x0609], value: 15.45 },
    voltage_l2: { words: [0x00e7], value: 231 },
    current_l2: { words: [0x012e], value: 30.2 },
    power_l2: { words: [0x02b2], value: 6.9 },
    voltage_l3: { words: [0x00e5], value: 229 },
    current_l3: { words: [0x012a], value: 29.8 },
    power_l3: { words: [0x02a8], value: 6.8 },
    active_power: { words: [0x0b63], value: 29.15 },
  },
};
