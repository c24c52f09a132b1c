/**
 * ABB B23 / B24, three-phase DIN-rail energy meters (direct and transformer connected) with
 * RS485 Modbus RTU (B23 112-100, B24 112-100 and the other Modbus variants).
 *
 * Source: ABB, "B23/B24 User Manual", document 2CMC485003M0201 revision A (2013-06-20),
 * chapter 9 "Communication with Modbus", section 9.3 mapping tables: function code 3,
 * big-endian registers; instantaneous values from 5B00h, energy accumulators from 5000h.
 * Resolutions from the table: voltage 0.1 V, current 0.01 A, power 0.01 W, frequency
 * 0.01 Hz, power factor 0.001, energy 0.01 kWh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");
const int16 = registersOf(3, "int16");
const uint32 = registersOf(3, "uint32");
const int32 = registersOf(3, "int32");
const uint64 = registersOf(3, "uint64");

export const abbB23: DeviceTemplate = {
  brand: "ABB",
  model: "B23",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "B23/B24 User Manual, chapter 9 Communication with Modbus, mapping tables",
    version: "2CMC485003M0201, revision A, 2013-06-20",
    checkedWith: "volkszaehler/mbmd meters/rs485/abb.go",
    checkedAgainst:
      "section 9.1.1 (function code 3, read holding registers, page 80), section 9.3 Mapping Tables (pages 86-94): total energy accumulators, active import 5000h and active export 5004h (4 registers, 0,01 kWh, unsigned); instantaneous values 5B00h-5B04h voltage L1-N..L3-N (2, 0,1 V, unsigned), 5B0Ch-5B10h current L1..L3 (2, 0,01 A, unsigned), 5B14h-5B1Ah active power total, L1..L3 (2, 0,01 W, signed), 5B2Ch frequency (1, 0,01 Hz, unsigned), 5B3Ah power factor total (1, 0,001, signed); start register as sent on the bus, no 40001 offset",
  },
  notes:
    "Also for the B24 (transformer connected). Set the Modbus address and baud rate on the meter's communication menu (default 19200 baud, 8 data bits, even parity, 1 stop bit). A quantity the meter does not measure reads as all ones (FFFF...h: no value).",
  registers: [
    uint64("energy_import", 0x5000, "kWh", 0.01, "Active import energy, total"),
    uint64("energy_export", 0x5004, "kWh", 0.01, "Active export energy, total"),
    uint32("voltage_l1", 0x5b00, "V", 0.1, "Voltage L1-N"),
    uint32("voltage_l2", 0x5b02, "V", 0.1, "Voltage L2-N"),
    uint32("voltage_l3", 0x5b04, "V", 0.1, "Voltage L3-N"),
    uint32("current_l1", 0x5b0c, "A", 0.01, "Current L1"),
    uint32("current_l2", 0x5b0e, "A", 0.01, "Current L2"),
    uint32("current_l3", 0x5b10, "A", 0.01, "Current L3"),
    int32("active_power", 0x5b14, "W", 0.01, "Active power, total"),
    int32("power_l1", 0x5b16, "W", 0.01, "Active power L1"),
    int32("power_l2", 0x5b18, "W", 0.01, "Active power L2"),
    int32("power_l3", 0x5b1a, "W", 0.01, "Active power L3"),
    uint16("frequency", 0x5b2c, "Hz", 0.01, "Frequency"),
    int16("power_factor", 0x5b3a, null, 0.001, "Power factor, total"),
  ],
  examples: {
    energy_import: { words: [0x0000, 0x0000, 0x0012, 0xd680], value: 12345.6 },
    energy_export: { words: [0x0000, 0x0000, 0x0012, 0xd681], value: 12345.61 },
    voltage_l1: { words: [0x0000, 0x0902], value: 230.6 },
    voltage_l2: { words: [0x0000, 0x0903], value: 230.7 },
    voltage_l3: { words: [0x0000, 0x0904], value: 230.8 },
    current_l1: { words: [0x0000, 0x0205], value: 5.17 },
    current_l2: { words: [0x0000, 0x0206], value: 5.18 },
    current_l3: { words: [0x0000, 0x0207], value: 5.19 },
    active_power: { words: [0x0001, 0xe242], value: 1234.58 },
    power_l1: { words: [0x0001, 0xe243], value: 1234.59 },
    power_l2: { words: [0x0001, 0xe244], value: 1234.6 },
    power_l3: { words: [0x0001, 0xe245], value: 1234.61 },
    frequency: { words: [0x138a], value: 50.02 },
    power_factor: { words: [0x03db], value: 0.987 },
  },
};
