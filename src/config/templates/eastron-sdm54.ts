/**
 * Eastron SDM54 series (SDM54-2T, SDM54-3T), three-phase DIN-rail energy meter, Modbus RTU.
 *
 * Source: Eastron, "SDM54 series user manual" V1.2, Modbus protocol input registers
 * (function code 04): IEEE 754 float32 values, high word first, at the hex protocol
 * addresses the manual gives beside the 3xxxx register numbers.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm54: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM54",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 80,
  source: {
    title: "SDM54 series user manual, Modbus protocol input registers",
    version: "V1.2",
    url: "https://www.eastrongroup.com/eastrongroup/2024/08/21/eastronsdm54seriesusermanualv1.2.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm54.go",
  },
  notes: "Factory settings: 9600 baud, 8 data bits, no parity, 1 stop bit, slave id 1. Read with function code 04.",
  registers: [
    float("voltage_l1", 0x0000, "V", null, "Phase 1 line to neutral voltage"),
    float("voltage_l2", 0x0002, "V", null, "Phase 2 line to neutral voltage"),
    float("voltage_l3", 0x0004, "V", null, "Phase 3 line to neutral voltage"),
    float("current_l1", 0x0006, "A", null, "Phase 1 current"),
    float("current_l2", 0x0008, "A", null, "Phase 2 current"),
    float("current_l3", 0x000a, "A", null, "Phase 3 current"),
    float("power_l1", 0x000c, "W", null, "Phase 1 active power"),
    float("power_l2", 0x000e, "W", null, "Phase 2 active power"),
    float("power_l3", 0x0010, "W", null, "Phase 3 active power"),
    float("active_power", 0x0034, "W", null, "Total system power"),
    float("apparent_power", 0x0038, "VA", null, "Total system volt-amps"),
    float("reactive_power", 0x003c, "var", null, "Total system reactive power"),
    float("power_factor", 0x003e, null, null, "Total system power factor"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltages"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy"),
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
    apparent_power: { words: [0x44a3, 0x2666], value: 1305.2 },
    reactive_power: { words: [0xc34c, 0xcccd], value: -204.8 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4641, 0x0266], value: 12352.6 },
    energy_export: { words: [0x4641, 0x0466], value: 12353.1 },
    energy_total: { words: [0x4641, 0x0666], value: 12353.6 },
  },
};
