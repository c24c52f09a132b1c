/**
 * Sungrow SH-RT hybrid inverters (SH5.0RT .. SH10RT, and the SH-RS single-phase models),
 * Modbus TCP on the inverter's own LAN port, or RTU.
 *
 * Source: Sungrow, "Communication Protocol of Residential Hybrid Inverter", V1.0.20
 * (2020/04/07 in its version table), section 3.1 (running information, read-only registers,
 * function code 04, section 3). The document numbers registers from 1 ("Total DC power
 * 5017-5018"); its note after the tables says "communication address = protocol address - 1"
 * and that U32/S32 are "little-endian for double-word data" (low word first, CDAB). The
 * device type code example, 0xE03 for the SH10RT, is the table's own.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(4, "uint16");
const int16 = registersOf(4, "int16");
const uint32 = registersOf(4, "uint32");
const int32 = registersOf(4, "int32");

export const sungrowShRt: DeviceTemplate = {
  brand: "Sungrow",
  model: "SH-RT",
  kind: "hybrid inverter",
  byteOrder: "CDAB",
  pollIntervalMs: 30_000,
  source: {
    title: "Communication Protocol of Residential Hybrid Inverter",
    version: "V1.0.20",
    url: "https://documents.pub/document/communication-protocol-of-residential-hybrid-inverter.html",
    checkedWith: "mkaiser/Sungrow-SHx-Inverter-Modbus-Home-Assistant; evcc sungrow-hybrid template",
    checkedAgainst:
      "version table (1.0.20, 2020/04/07), section 2.1 (RS485 9600 bps, 8 data bits, 1 stop bit), section 3 (0x04 for read-only registers), section 3.1 No. 6 device type code 5000 (SH10RT 0xE03), 9 5003, 10 5004-5005, 12 5008, 14-17 5011-5014, 19 5017-5018, 20 5019, 47 running state 13001, 53 export power 13010-13011, 59-64 13020-13025 (address, type, unit of each), note after the tables (address - 1; U32/S32 low word first), in the copy committed to bohdan-s/Sungrow-Inverter (Modbus Information/communication-protocol-of-residential-hybrid-inverterv1.0.20-1.pdf)",
  },
  notes:
    "Read through the inverter's LAN port or RS485 (9600 baud, 8N1); the WiNet-S dongle does not serve these registers reliably. Unit id 1.",
  registers: [
    uint16("device_type_code", 5000 - 1, null, null, "Device type code (0x0E03 SH10RT, 0x0E00 SH5.0RT, ...)"),
    uint16("daily_output_energy", 5003 - 1, "kWh", 0.1, "Daily output energy"),
    uint32("total_output_energy", 5004 - 1, "kWh", 0.1, "Total output energy"),
    int16("internal_temperature", 5008 - 1, "°C", 0.1, "Internal temperature"),
    uint16("mppt1_voltage", 5011 - 1, "V", 0.1, "MPPT 1 voltage"),
    uint16("mppt1_current", 5012 - 1, "A", 0.1, "MPPT 1 current"),
    uint16("mppt2_voltage", 5013 - 1, "V", 0.1, "MPPT 2 voltage"),
    uint16("mppt2_current", 5014 - 1, "A", 0.1, "MPPT 2 current"),
    uint32("total_dc_power", 5017 - 1, "W", null, "Total DC power"),
    uint16("voltage_l1", 5019 - 1, "V", 0.1, "Phase A voltage (A-B line voltage when the output type, 5002, is 3P3L)"),
    int32("export_power", 13010 - 1, "W", null, "Export power (negative: import from the grid)"),
    uint16("battery_voltage", 13020 - 1, "V", 0.1, "Battery voltage"),
    uint16("battery_current", 13021 - 1, "A", 0.1, "Battery current"),
    uint16("battery_power", 13022 - 1, "W", null, "Battery power (direction in the running state, 13001)"),
    uint16("battery_level", 13023 - 1, "%", 0.1, "Battery level (state of charge)"),
    uint16("battery_health", 13024 - 1, "%", 0.1, "Battery state of health"),
    int16("battery_temperature", 13025 - 1, "°C", 0.1, "Battery temperature"),
  ],
  examples: {
    device_type_code: {
      words: [0x0e03],
      value: 3587,
      fromDocument: "section 3.1, No. 6 device type code: SH10RT 0xE03",
    },
    daily_output_energy: { words: [0x00ea], value: 23.4 },
    total_output_energy: { words: [0xe242, 0x0001], value: 12345.8 },
    internal_temperature: { words: [0x0185], value: 38.9 },
    mppt1_voltage: { words: [0x0904], value: 230.8 },
    mppt1_current: { words: [0x0038], value: 5.6 },
    mppt2_voltage: { words: [0x0906], value: 231 },
    mppt2_current: { words: [0x003a], value: 5.8 },
    total_dc_power: { words: [0x17e8, 0x0000], value: 6120 },
    voltage_l1: { words: [0x0909], value: 231.3 },
    export_power: { words: [0xfb1e, 0xffff], value: -1250 },
    battery_voltage: { words: [0x101b], value: 412.3 },
    battery_current: { words: [0x0033], value: 5.1 },
    battery_power: { words: [0x0834], value: 2100 },
    battery_level: { words: [0x02c9], value: 71.3 },
    battery_health: { words: [0x03db], value: 98.7 },
    battery_temperature: { words: [0x00f6], value: 24.6 },
  },
};
