/**
 * Eastron SDM72D-M V2 (SDM72D-M-2), three-phase DIN-rail energy meter (MID), Modbus RTU.
 *
 * Source: Eastron, "Eastron SDM72D-M-2 User Manual V1.1.1 2023", part 3 "Modbus Protocol",
 * input registers (function code 04, pages 13-14): IEEE 754 float32 values in two
 * registers, high register first (Eastron's float order, as in its SDM630/SDM120 protocol
 * documents), at the hex protocol start addresses the table gives beside the 3xxxx
 * register numbers (30001 -> 0x0000). Its table lists no phase 3 line to neutral voltage
 * (30005), so the template has none.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");

export const eastronSdm72d: DeviceTemplate = {
  brand: "Eastron",
  model: "SDM72D-M V2",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  // "Each request for data must be restricted to 30 parameters or less" (part 3): 60 registers.
  maxRegistersPerRequest: 60,
  source: {
    title: "Eastron SDM72D-M-2 User Manual",
    version: "V1.1.1 2023",
    url: "https://github.com/mStirner/oh-plg-smartmeter-sdm72d/blob/main/docs/eastron_sdm72dmv2.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/sdm72v2.go",
    checkedAgainst:
      "Part 3 Modbus Protocol, Input Registers table (pages 13-14): register number, hex start address, length 4 bytes, Float and units of each; the 30-parameter limit above it; set-up menu defaults (Modbus address, baud rate, parity, stop bit; pages 8-9) and holding registers 40019/40021 (page 15)",
  },
  notes:
    "Factory settings: 9600 baud, 8 data bits, no parity, 1 stop bit, slave id 1. Read with function code 04, at most 30 values (60 registers) a request. The manual's input register table lists no phase 3 line to neutral voltage (30005). The first version (SDM72D-M without V2) has only total power and energy.",
  registers: [
    float("voltage_l1", 0x0000, "V", null, "Phase 1 line to neutral voltage"),
    float("voltage_l2", 0x0002, "V", null, "Phase 2 line to neutral voltage"),
    float("current_l1", 0x0006, "A", null, "Phase 1 current"),
    float("current_l2", 0x0008, "A", null, "Phase 2 current"),
    float("current_l3", 0x000a, "A", null, "Phase 3 current"),
    float("power_l1", 0x000c, "W", null, "Phase 1 active power"),
    float("power_l2", 0x000e, "W", null, "Phase 2 active power"),
    float("power_l3", 0x0010, "W", null, "Phase 3 active power"),
    float("active_power", 0x0034, "W", null, "Total system active power"),
    float("power_factor", 0x003e, null, null, "Total system power factor"),
    float("frequency", 0x0046, "Hz", null, "Frequency of the supply voltages"),
    float("energy_import", 0x0048, "kWh", null, "Total imported active energy"),
    float("energy_export", 0x004a, "kWh", null, "Total exported active energy"),
    float("energy_total", 0x0156, "kWh", null, "Total active energy (import + export)"),
  ],
  examples: {
    voltage_l1: { words: [0x4366, 0x6666], value: 230.4 },
    voltage_l2: { words: [0x4366, 0xe666], value: 230.9 },
    current_l1: { words: [0x40d4, 0x0000], value: 6.625 },
    current_l2: { words: [0x40e4, 0x0000], value: 7.125 },
    current_l3: { words: [0x40f4, 0x0000], value: 7.625 },
    power_l1: { words: [0x449a, 0xb000], value: 1237.5 },
    power_l2: { words: [0x449a, 0xc000], value: 1238 },
    power_l3: { words: [0x449a, 0xd000], value: 1238.5 },
    active_power: { words: [0x449a, 0xe000], value: 1239 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    frequency: { words: [0x4248, 0x147b], value: 50.02 },
    energy_import: { words: [0x4640, 0xfe66], value: 12351.6 },
    energy_export: { words: [0x4641, 0x0066], value: 12352.1 },
    energy_total: { words: [0x4641, 0x0266], value: 12352.6 },
  },
};
