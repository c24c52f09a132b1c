/**
 * SolaX X3-Hybrid G4 (and X1-Hybrid G4) hybrid inverters, Modbus TCP through the LAN port
 * or Modbus RTU on the COM port.
 *
 * Source: SolaX Power, "Hybrid X1&X3-G4 ModbusTCP&RTU" protocol, V3.21, input registers
 * (function code 04) at the hex addresses the document gives; 32-bit values are sent low
 * word first (CDAB).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(4, "uint16");
const int16 = registersOf(4, "int16");
const int32 = registersOf(4, "int32");
const uint32 = registersOf(4, "uint32");

export const solaxX3HybridG4: DeviceTemplate = {
  brand: "SolaX",
  model: "X3-Hybrid G4",
  kind: "hybrid inverter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  source: {
    title: "Hybrid X1&X3-G4 ModbusTCP&RTU protocol (input registers)",
    version: "V3.21",
    checkedWith: "evcc solax template (0x000A, 0x000B, 0x0016, 0x001C, 0x0046, 0x004A, 0x0094)",
  },
  notes: "Modbus TCP on port 502, unit id 1 (enable it in the inverter's settings); RS485 default 19200 baud, 8N1.",
  registers: [
    uint16("pv1_power", 0x000a, "W", null, "PV1 DC power (Powerdc1)"),
    uint16("pv2_power", 0x000b, "W", null, "PV2 DC power (Powerdc2)"),
    int16("battery_power", 0x0016, "W", null, "Battery charge power (Batpower_Charge1; negative: discharging)"),
    uint16("battery_soc", 0x001c, "%", null, "Battery capacity (state of charge)"),
    int32("feed_in_power", 0x0046, "W", null, "Feed-in power at the meter (feedin_power; negative: import)"),
    uint32("consumed_energy_total", 0x004a, "kWh", 0.01, "Energy imported from the grid, total (meter)"),
    uint32("solar_energy_total", 0x0094, "kWh", 0.1, "Solar energy, total"),
  ],
  examples: {
    pv1_power: { words: [0x04d2], value: 1234 },
    pv2_power: { words: [0x04d3], value: 1235 },
    battery_power: { words: [0xfc4a], value: -950 },
    battery_soc: { words: [0x0037], value: 55 },
    feed_in_power: { words: [0xf7ae, 0xffff], value: -2130 },
    consumed_energy_total: { words: [0xd685, 0x0012], value: 12345.65 },
    solar_energy_total: { words: [0xe246, 0x0001], value: 12346.2 },
  },
};
