/**
 * CHINT DTSU666, three-phase DIN-rail energy meter, Modbus RTU (the same meter Huawei sells
 * as DTSU666-H; its map differs: use this template for CHINT's own DTSU666).
 *
 * Source: CHINT, "DTSU666/DSSU666 series electronic energy meter user manual", Modbus
 * communication address table: IEEE 754 float32, high word first, function code 03. The
 * table gives a scale per quantity: the float is the value times 10 (voltage, power) or
 * 1000 (current, power factor), frequency times 100, energy in kWh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const chintDtsu666: DeviceTemplate = {
  brand: "CHINT",
  model: "DTSU666",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "DTSU666/DSSU666 series electronic energy meter user manual, Modbus communication address table",
    version: "as published by CHINT Global (DTSU666 DSSU666 User Manual.pdf)",
    url: "https://www.chintglobal.com/content/dam/chint/global/product-center/instruments-meters/electricity-meter/din-rail-meter/dtsu666/manual/DTSU666%20DSSU666%20User%20Manual.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/dtsu666.go",
  },
  notes:
    "Default 9600 baud, 8 data bits, no parity, 1 stop bit, address 1. Power is signed (negative: export); power factor is the power factor, not cos phi.",
  registers: [
    float("voltage_l1", 0x2006, "V", 0.1, "Phase A voltage"),
    float("voltage_l2", 0x2008, "V", 0.1, "Phase B voltage"),
    float("voltage_l3", 0x200a, "V", 0.1, "Phase C voltage"),
    float("current_l1", 0x200c, "A", 0.001, "Phase A current"),
    float("current_l2", 0x200e, "A", 0.001, "Phase B current"),
    float("current_l3", 0x2010, "A", 0.001, "Phase C current"),
    float("active_power", 0x2012, "W", 0.1, "Total active power"),
    float("power_l1", 0x2014, "W", 0.1, "Phase A active power"),
    float("power_l2", 0x2016, "W", 0.1, "Phase B active power"),
    float("power_l3", 0x2018, "W", 0.1, "Phase C active power"),
    float("reactive_power", 0x201a, "var", 0.1, "Total reactive power"),
    float("power_factor", 0x202a, null, 0.001, "Total power factor"),
    float("frequency", 0x2044, "Hz", 0.01, "Frequency"),
    float("energy_import", 0x101e, "kWh", null, "Forward (imported) active energy, total"),
    float("energy_export", 0x1028, "kWh", null, "Reverse (exported) active energy, total"),
  ],
  examples: {
    voltage_l1: { words: [0x4510, 0x0000], value: 230.4 },
    voltage_l2: { words: [0x4510, 0x0800], value: 230.45 },
    voltage_l3: { words: [0x4510, 0x1000], value: 230.5 },
    current_l1: { words: [0x45a0, 0x3400], value: 5.1265 },
    current_l2: { words: [0x45a0, 0x3800], value: 5.127 },
    current_l3: { words: [0x45a0, 0x3c00], value: 5.1275 },
    active_power: { words: [0x4640, 0xf000], value: 1234.8 },
    power_l1: { words: [0x4640, 0xf200], value: 1234.85 },
    power_l2: { words: [0x4640, 0xf400], value: 1234.9 },
    power_l3: { words: [0x4640, 0xf600], value: 1234.95 },
    reactive_power: { words: [0xc503, 0x2000], value: -209.8 },
    power_factor: { words: [0x446d, 0x8000], value: 0.95 },
    frequency: { words: [0x459c, 0x5000], value: 50.02 },
    energy_import: { words: [0x4641, 0x0066], value: 12352.1 },
    energy_export: { words: [0x4641, 0x0266], value: 12352.6 },
  },
};
