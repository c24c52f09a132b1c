/**
 * Eltako DSZ15DZMOD, three-phase MID energy meter with Modbus RTU (integer data format).
 *
 * Source: Eltako, "Modbus-RTU protocol specification for DSZ15DZMOD": input registers
 * (function code 04), 32-bit integers high word first; voltage and current in units of
 * 0.01, power factor 0.001, power in W, energy in 0.01 kWh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint32 = registersOf(4, "uint32");
const int32 = registersOf(4, "int32");

export const eltakoDsz15dzmod: DeviceTemplate = {
  brand: "Eltako",
  model: "DSZ15DZMOD",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "Modbus-RTU protocol specification for DSZ15DZMOD",
    version: "as published by Eltako (Modbus-RTU_protocol_specification_for_DSZ15DZMOD)",
    checkedWith: "volkszaehler/mbmd meters/rs485/eltako.go",
  },
  notes: "Set address and baud rate on the meter. Integer data format.",
  registers: [
    uint32("voltage_l1", 0x0000, "V", 0.01, "Voltage L1-N"),
    uint32("voltage_l2", 0x0002, "V", 0.01, "Voltage L2-N"),
    uint32("voltage_l3", 0x0004, "V", 0.01, "Voltage L3-N"),
    uint32("current_l1", 0x0006, "A", 0.01, "Current L1"),
    uint32("current_l2", 0x0008, "A", 0.01, "Current L2"),
    uint32("current_l3", 0x000a, "A", 0.01, "Current L3"),
    int32("power_l1", 0x000c, "W", null, "Active power L1"),
    int32("power_l2", 0x000e, "W", null, "Active power L2"),
    int32("power_l3", 0x0010, "W", null, "Active power L3"),
    int32("power_factor_l1", 0x001e, null, 0.001, "Power factor L1"),
    int32("active_power", 0x0034, "W", null, "Total active power"),
    int32("power_factor", 0x003e, null, 0.001, "Total power factor"),
    uint32("energy_import", 0x0048, "kWh", 0.01, "Imported active energy"),
    uint32("energy_export", 0x004a, "kWh", 0.01, "Exported active energy"),
  ],
  examples: {
    voltage_l1: { words: [0x0000, 0x5a00], value: 230.4 },
    voltage_l2: { words: [0x0000, 0x5a01], value: 230.41 },
    voltage_l3: { words: [0x0000, 0x5a02], value: 230.42 },
    current_l1: { words: [0x0000, 0x0203], value: 5.15 },
    current_l2: { words: [0x0000, 0x0204], value: 5.16 },
    current_l3: { words: [0x0000, 0x0205], value: 5.17 },
    power_l1: { words: [0x0000, 0x04d8], value: 1240 },
    power_l2: { words: [0x0000, 0x04d9], value: 1241 },
    power_l3: { words: [0x0000, 0x04da], value: 1242 },
    power_factor_l1: { words: [0x0000, 0x03df], value: 0.991 },
    active_power: { words: [0x0000, 0x04dc], value: 1244 },
    power_factor: { words: [0x0000, 0x03d9], value: 0.985 },
    energy_import: { words: [0x0012, 0xd68c], value: 12345.72 },
    energy_export: { words: [0x0012, 0xd68d], value: 12345.73 },
  },
};
