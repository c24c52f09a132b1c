/**
 * SolaX X3-Hybrid G4 (and X1-Hybrid G4) hybrid inverters, Modbus RTU on the COM port or
 * Modbus TCP through SolaX's monitoring module.
 *
 * Source: SolaX Power, "Energy Storage Inverter Modbus TCP&RTU Communication protocols",
 * V3.21 (the Hybrid X1&X3-G4 protocol): "0x03: Read Holding Register" and "0x04: Read Input
 * Register" tables, at the hex register addresses they give (protocol addresses: the
 * sample request for InverterSN at 0x0000-0x0006 sends start address 00 00). "32bit data
 * use little endian format": the low word first ("0x46:LSB, 0x47:MSB"), CDAB. The serial
 * number example is the document's own sample answer (01 03 0E 48 34 ...).
 */
import { registersOf, textRegister } from "./define.ts";
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
    title: "Energy Storage Inverter Modbus TCP&RTU Communication protocols (Hybrid X1&X3-G4)",
    version: "V3.21",
    checkedWith: "evcc solax template (0x000A, 0x000B, 0x0016, 0x001C, 0x0046, 0x004A, 0x0094)",
    checkedAgainst:
      'Protocols general (RS485 address 1, 19200 baud, 8N1; TCP port 502 through the monitoring module); "0x03: Read Holding Register" table (InverterSN 0x0000-0x0006, 14 chars) and its example request/response; "0x04: Read Input Register" table (Powerdc1 0x000A, Powerdc2 0x000B, Batpower_Charge1 0x0016, Battery Capacity 0x001C, feedin_power 0x0046-0x0047, consum_energy_total 0x004A-0x004B, SolarEnergyTotal 0x0094-0x0095)',
  },
  notes:
    "RS485 on the COM port: address 1, 19200 baud, 8 data bits, no parity, 1 stop bit. The inverter itself has no Modbus TCP: it answers on port 502 (unit id 1) only through SolaX's monitoring module. Leave at least 1 s between two requests.",
  registers: [
    textRegister(3, "serial_number", 0x0000, 7, "InverterSN: inverter serial number, 14 characters"),
    uint16("pv1_power", 0x000a, "W", null, "Powerdc1: PV1 DC power"),
    uint16("pv2_power", 0x000b, "W", null, "Powerdc2: PV2 DC power"),
    int16("battery_power", 0x0016, "W", null, "Batpower_Charge1: battery power (direction in BDCStatus, 0x0019)"),
    uint16("battery_soc", 0x001c, "%", null, "Battery Capacity: battery state of charge"),
    int32(
      "feed_in_power",
      0x0046,
      "W",
      null,
      "feedin_power from the meter or CT (positive: generating into the grid; negative: consuming)",
    ),
    uint32("consumed_energy_total", 0x004a, "kWh", 0.01, "consum_energy_total (meter): energy from the grid"),
    uint32("solar_energy_total", 0x0094, "kWh", 0.1, "SolarEnergyTotal"),
  ],
  examples: {
    serial_number: {
      words: [0x4834, 0x3735, 0x3232, 0x5a48, 0x454e, 0x4757, 0x454e],
      value: "H47522ZHENGWEN",
      fromDocument: '"0x03: Read Holding Register", example: read InverterSN, slave response',
    },
    pv1_power: { words: [0x04d2], value: 1234 },
    pv2_power: { words: [0x04d3], value: 1235 },
    battery_power: { words: [0xfc4a], value: -950 },
    battery_soc: { words: [0x0037], value: 55 },
    feed_in_power: { words: [0xf7ae, 0xffff], value: -2130 },
    consumed_energy_total: { words: [0xd685, 0x0012], value: 12345.65 },
    solar_energy_total: { words: [0xe246, 0x0001], value: 12346.2 },
  },
};
