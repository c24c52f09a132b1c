/**
 * Eastron SDM230-Modbus, single-phase DIN-rail energy meter (MID), Modbus RTU.
 *
 * Source: Eastron, "SDM230-Modbus register list" (input registers, function code 04),
 * as published by B+G e-tech: IEEE 754 float32 values, high word first, at the hex
 * protocol addresses the list gives beside the 3xxxx register numbers.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm230: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM230",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 80,
  source: {
    title: "SDM230-Modbus register list (Modbus protocol input registers)",
    version: "SDM230-Modbus, register list as published by B+G e-tech (SDM230-register.pdf)",
    url: "https://bg-etech.de/download/manual/SDM230-register.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm230.go",
  },
  notes: "Factory settings: 9600 baud, 8 data bits, no parity, 1 stop bit, slave id 1. Read with function code 04.",
  registers: [
    float("voltage", 0x0000, "V", null, "Line to neutral voltage"),
    float("current", 0x0006, "A", null, "Current"),
    float("active_power", 0x000c, "W", null, "Active power"),
    float("apparent_power", 0x0012, "VA", null, "Apparent power"),
    float("reactive_power", 0x0018, "var", null, "Reactive power"),
    float("power_factor", 0x001e, null, null, "Power factor"),
    float("phase_angle", 0x0024, "°", null, "Phase angle"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltage"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy"),
  ],
  examples: {
    voltage: { words: [0x4366, 0x6666], value: 230.4 },
    current: { words: [0x40b4, 0x0000], value: 5.625 },
    active_power: { words: [0x449a, 0x7000], value: 1235.5 },
    apparent_power: { words: [0x44a2, 0xb666], value: 1301.7 },
    reactive_power: { words: [0xc350, 0x4ccd], value: -208.3 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    phase_angle: { words: [0xc118, 0x0000], value: -9.5 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4640, 0xf666], value: 12349.6 },
    energy_export: { words: [0x4640, 0xf866], value: 12350.1 },
    energy_total: { words: [0x4640, 0xfa66], value: 12350.6 },
  },
};
