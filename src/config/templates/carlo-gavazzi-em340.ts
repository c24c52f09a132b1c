/**
 * Carlo Gavazzi EM340 (and EM330, ET330, ET340), three-phase energy analyser, Modbus RTU.
 *
 * Source: Carlo Gavazzi, "EM330/EM340/ET330/ET340 Communication protocol", table of
 * instantaneous variables and meters (function codes 03/04). INT32 values are sent
 * least significant word first (CDAB); the "value weight" column gives the scale: Volt*10,
 * Ampere*1000, Watt*10, PF*1000, Hz*10, kWh*10.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const int32 = registersOf(3, "int32");
const int16 = registersOf(3, "int16");

export const carloGavazziEm340: DeviceTemplate = {
  brand: "Carlo Gavazzi",
  model: "EM340",
  kind: "energy meter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  source: {
    title: "EM330/EM340/ET330/ET340 Communication protocol",
    version: "as attached to volkszaehler/mbmd (EM330_EM340_ET330_ET340_CP.pdf)",
    url: "https://github.com/volkszaehler/mbmd/files/10538388/EM330_EM340_ET330_ET340_CP.pdf",
    checkedWith:
      "volkszaehler/mbmd meters/rs485/carlogavazzi-ex3x0.go; victronenergy/dbus-modbus-client carlo_gavazzi.py",
  },
  notes: "Default 9600 baud, 8 data bits, no parity, 1 stop bit, address 1. 32-bit values are low word first (CDAB).",
  registers: [
    int32("voltage_l1", 0x0000, "V", 0.1, "Voltage L1-N"),
    int32("voltage_l2", 0x0002, "V", 0.1, "Voltage L2-N"),
    int32("voltage_l3", 0x0004, "V", 0.1, "Voltage L3-N"),
    int32("current_l1", 0x000c, "A", 0.001, "Current L1"),
    int32("current_l2", 0x000e, "A", 0.001, "Current L2"),
    int32("current_l3", 0x0010, "A", 0.001, "Current L3"),
    int32("power_l1", 0x0012, "W", 0.1, "Active power L1"),
    int32("power_l2", 0x0014, "W", 0.1, "Active power L2"),
    int32("power_l3", 0x0016, "W", 0.1, "Active power L3"),
    int32("active_power", 0x0028, "W", 0.1, "System active power"),
    int16("power_factor", 0x0031, null, 0.001, "System power factor"),
    int16("frequency", 0x0033, "Hz", 0.1, "Frequency"),
    int32("energy_import", 0x0034, "kWh", 0.1, "Total imported active energy, kWh(+) TOT"),
    int32("energy_import_l1", 0x0040, "kWh", 0.1, "Imported active energy L1"),
    int32("energy_import_l2", 0x0042, "kWh", 0.1, "Imported active energy L2"),
    int32("energy_import_l3", 0x0044, "kWh", 0.1, "Imported active energy L3"),
    int32("energy_export", 0x004e, "kWh", 0.1, "Total exported active energy, kWh(-) TOT"),
  ],
  examples: {
    voltage_l1: { words: [0x0900, 0x0000], value: 230.4 },
    voltage_l2: { words: [0x0901, 0x0000], value: 230.5 },
    voltage_l3: { words: [0x0902, 0x0000], value: 230.6 },
    current_l1: { words: [0x1408, 0x0000], value: 5.128 },
    current_l2: { words: [0x1409, 0x0000], value: 5.129 },
    current_l3: { words: [0x140a, 0x0000], value: 5.13 },
    power_l1: { words: [0x303f, 0x0000], value: 1235.1 },
    power_l2: { words: [0x3040, 0x0000], value: 1235.2 },
    power_l3: { words: [0x3041, 0x0000], value: 1235.3 },
    active_power: { words: [0x3042, 0x0000], value: 1235.4 },
    power_factor: { words: [0x03b6], value: 0.95 },
    frequency: { words: [0x01f5], value: 50.1 },
    energy_import: { words: [0xe24c, 0x0001], value: 12346.8 },
    energy_import_l1: { words: [0xe24d, 0x0001], value: 12346.9 },
    energy_import_l2: { words: [0xe24e, 0x0001], value: 12347 },
    energy_import_l3: { words: [0xe24f, 0x0001], value: 12347.1 },
    energy_export: { words: [0xe250, 0x0001], value: 12347.2 },
  },
};
