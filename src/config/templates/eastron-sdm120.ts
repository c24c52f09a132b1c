/**
 * Eastron SDM120-Modbus, single-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Eastron, "SDM120-Modbus user manual", section "Modbus Protocol - Input
 * Registers" (function code 04). Every value is an IEEE 754 float32 in two registers, high
 * word first. The manual numbers registers from 30001; the addresses here are the hex
 * protocol addresses it gives beside them (30001 -> 0x0000).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm120: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM120",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 80,
  source: {
    title: "SDM120-Modbus single phase multi-function DIN rail meter: user manual, Modbus protocol input registers",
    version: "SDM120-Modbus (MID), manual as published by B+G e-tech (sdm120modbus_manual.pdf)",
    url: "https://stromzähler.eu/media/7e/64/b6/1696582669/sdm120modbus_manual.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm120.go",
  },
  notes:
    "Factory settings: 2400 baud, 8 data bits, no parity, 1 stop bit, slave id 1 (set on the meter's menu). Read with function code 04; at most 40 values per request.",
  registers: [
    float("voltage", 0x0000, "V", null, "Line to neutral voltage"),
    float("current", 0x0006, "A", null, "Current"),
    float("active_power", 0x000c, "W", null, "Active power (negative: export)"),
    float("apparent_power", 0x0012, "VA", null, "Apparent power"),
    float("reactive_power", 0x0018, "var", null, "Reactive power"),
    float("power_factor", 0x001e, null, null, "Power factor"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltage"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("reactive_energy_import", 0x004c, "kvarh", null, "Total imported reactive energy"),
    float("reactive_energy_export", 0x004e, "kvarh", null, "Total exported reactive energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy (import + export)"),
  ],
  examples: {
    voltage: { words: [0x4366, 0x6666], value: 230.4 },
    current: { words: [0x40b4, 0x0000], value: 5.625 },
    active_power: { words: [0x449a, 0x7000], value: 1235.5 },
    apparent_power: { words: [0x44a2, 0xb666], value: 1301.7 },
    reactive_power: { words: [0xc350, 0x4ccd], value: -208.3 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4640, 0xf466], value: 12349.1 },
    energy_export: { words: [0x4640, 0xf666], value: 12349.6 },
    reactive_energy_import: { words: [0x43a3, 0x199a], value: 326.2 },
    reactive_energy_export: { words: [0x43a3, 0x599a], value: 326.7 },
    energy_total: { words: [0x4640, 0xfc66], value: 12351.1 },
  },
};
