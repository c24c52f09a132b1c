/**
 * Growatt MIN TL-X and MIC/MOD TL-X string inverters, Modbus RTU on the RS485 port (also
 * through a ShineLAN-X gateway as Modbus TCP).
 *
 * Source: Growatt, "Growatt Inverter Modbus RTU Protocol", V1.24, input registers (function
 * code 04) 0-124 of the TL-X protocol: addresses as the protocol table gives them (no
 * offset), 32-bit values high word first, "0.1W" and "0.1kWh" units scale 0.1.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(4, "uint16");
const uint32 = registersOf(4, "uint32");

export const growattMinTlX: DeviceTemplate = {
  brand: "Growatt",
  model: "MIN TL-X",
  kind: "PV inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "Growatt Inverter Modbus RTU Protocol (input registers)",
    version: "V1.24",
    checkedWith: "evcc growatt-hybrid template (Ppv at input register 1, uint32, 0.1 W)",
  },
  notes:
    "RS485: 9600 baud, 8 data bits, no parity, 1 stop bit; address 1 by default. At most 125 registers per request.",
  registers: [
    uint16("status", 0, null, null, "Inverter run state: 0 waiting, 1 normal, 3 fault"),
    uint32("pv_power", 1, "W", 0.1, "PV input power (Ppv)"),
    uint16("pv1_voltage", 3, "V", 0.1, "PV1 voltage"),
    uint16("pv1_current", 4, "A", 0.1, "PV1 input current"),
    uint32("pv1_power", 5, "W", 0.1, "PV1 input power"),
    uint32("active_power", 35, "W", 0.1, "Output power (Pac)"),
    uint16("frequency", 37, "Hz", 0.01, "Grid frequency (Fac)"),
    uint16("voltage_l1", 38, "V", 0.1, "Three/single phase grid voltage (Vac1)"),
    uint16("current_l1", 39, "A", 0.1, "Three/single phase grid output current (Iac1)"),
    uint32("energy_today", 53, "kWh", 0.1, "Today generated energy (Eac today)"),
    uint32("energy_total", 55, "kWh", 0.1, "Total generated energy (Eac total)"),
    uint16("inverter_temperature", 93, "°C", 0.1, "Inverter temperature"),
  ],
  examples: {
    status: { words: [0x0001], value: 1 },
    pv_power: { words: [0x0000, 0x303a], value: 1234.6 },
    pv1_voltage: { words: [0x0902], value: 230.6 },
    pv1_current: { words: [0x0036], value: 5.4 },
    pv1_power: { words: [0x0000, 0x303d], value: 1234.9 },
    active_power: { words: [0x0000, 0x303e], value: 1235 },
    frequency: { words: [0x138a], value: 50.02 },
    voltage_l1: { words: [0x0907], value: 231.1 },
    current_l1: { words: [0x003b], value: 5.9 },
    energy_today: { words: [0x0001, 0xe249], value: 12346.5 },
    energy_total: { words: [0x0001, 0xe24a], value: 12346.6 },
    inverter_temperature: { words: [0x019c], value: 41.2 },
  },
};
