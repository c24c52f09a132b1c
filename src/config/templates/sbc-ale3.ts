/**
 * Saia Burgess Controls ALE3 (ALE3D5FD10C3A00 and the other ALE3 Modbus variants),
 * three-phase MID energy meter, Modbus RTU.
 *
 * Source: Saia Burgess Controls, ALE3 energy meter with Modbus interface, technical data
 * sheet / Modbus register table (sbc-support.com, "Axx3 3-ph Modbus"): holding registers
 * (function code 03); voltage in V, current in 0.1 A, energy in 0.01 kWh (32-bit, high
 * word first).
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
    title: "ALE3 energy meter with Modbus interface, Modbus register table",
    version: "as published on sbc-support.com (Axx3 3-ph Modbus)",
    url: "https://sbc-support.com/de/produkt-index/axx-energiezaehler/axx3-3-ph-modbus/",
    checkedWith: "volkszaehler/mbmd meters/rs485/sbc.go",
  },
  notes: "Default 19200 baud, 8 data bits, even parity, 1 stop bit; address set with the meter's push button.",
  registers: [
    uint32("energy_import", 28, "kWh", 0.01, "Total active energy, tariff 1 (import)"),
    uint32("energy_export", 32, "kWh", 0.01, "Total active energy, tariff 2 (export on the bidirectional meter)"),
    uint16("voltage_l1", 36, "V", null, "Voltage phase 1"),
    uint16("current_l1", 37, "A", 0.1, "Current phase 1"),
    uint16("voltage_l2", 41, "V", null, "Voltage phase 2"),
    uint16("current_l2", 42, "A", 0.1, "Current phase 2"),
    uint16("voltage_l3", 46, "V", null, "Voltage phase 3"),
    uint16("current_l3", 47, "A", 0.1, "Current phase 3"),
  ],
  examples: {
    energy_import: { words: [0x0012, 0xd680], value: 12345.6 },
    energy_export: { words: [0x0012, 0xd681], value: 12345.61 },
    voltage_l1: { words: [0x00e8], value: 232 },
    current_l1: { words: [0x0036], value: 5.4 },
    voltage_l2: { words: [0x00ea], value: 234 },
    current_l2: { words: [0x0038], value: 5.6 },
    voltage_l3: { words: [0x00ec], value: 236 },
    current_l3: { words: [0x003a], value: 5.8 },
  },
};
