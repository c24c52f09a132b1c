/**
 * Siemens SENTRON PAC2200, three-phase measuring device / MID energy meter, Modbus RTU or
 * Modbus TCP.
 *
 * Source: Siemens, "SENTRON PAC2200 power monitoring device" manual, Modbus measured
 * variables table: offsets are protocol addresses (no offset), read with function code
 * 03 or 04; IEEE 754 float32 high word first; energy counters float64 in Wh.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(4, "float32");
const double = registersOf(4, "float64");

export const siemensPac2200: DeviceTemplate = {
  brand: "Siemens",
  model: "PAC2200",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "SENTRON PAC2200 power monitoring device, manual, Modbus measured variables",
    version: "as attached to evcc-io/evcc (PAC2200.pdf)",
    url: "https://github.com/evcc-io/evcc/files/8588580/PAC2200.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/pac2200.go",
  },
  notes:
    "RS485 default 19200 baud, 8 data bits, even parity, 1 stop bit; the Ethernet variant answers Modbus TCP on port 502.",
  registers: [
    float("voltage_l1", 1, "V", null, "Voltage a-n"),
    float("voltage_l2", 3, "V", null, "Voltage b-n"),
    float("voltage_l3", 5, "V", null, "Voltage c-n"),
    float("current_l1", 13, "A", null, "Current a"),
    float("current_l2", 15, "A", null, "Current b"),
    float("current_l3", 17, "A", null, "Current c"),
    float("power_l1", 25, "W", null, "Active power a"),
    float("power_l2", 27, "W", null, "Active power b"),
    float("power_l3", 29, "W", null, "Active power c"),
    float("apparent_power", 63, "VA", null, "Total apparent power"),
    float("active_power", 65, "W", null, "Total active power"),
    float("reactive_power", 67, "var", null, "Total reactive power"),
    float("power_factor", 69, null, null, "Total power factor"),
    double("energy_import", 801, "Wh", null, "Active energy import, tariff 1"),
    double("energy_export", 809, "Wh", null, "Active energy export, tariff 1"),
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
    apparent_power: { words: [0x44a3, 0x1666], value: 1304.7 },
    active_power: { words: [0x449a, 0xf000], value: 1239.5 },
    reactive_power: { words: [0xc34c, 0xcccd], value: -204.8 },
    power_factor: { words: [0x3f73, 0x3333], value: 0.95 },
    energy_import: { words: [0x412e, 0x2419, 0x0000, 0x0000], value: 987660.5 },
    energy_export: { words: [0x412e, 0x241a, 0x0000, 0x0000], value: 987661 },
  },
};
