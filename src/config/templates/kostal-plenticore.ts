/**
 * KOSTAL PLENTICORE plus (and PIKO IQ, PLENTICORE G2/G3), PV and hybrid inverter, Modbus
 * TCP on port 1502, unit id 71.
 *
 * Source: KOSTAL, "KOSTAL Interface description MODBUS (TCP) & SunSpec with control
 * information", PIKO IQ / PLENTICORE, revision 2.7 of 20.11.2025: table 3.2 "Query the
 * operating data", holding registers read with function code 03 at the addresses the table
 * gives (the PDU addresses registers from zero, section 2.1.4). "Float" values are IEEE 754
 * float32; in the default byte order "little-endian (CDAB) Standard Modbus" (section 2.1.2,
 * note 7) the low word comes first. The S16 power values at 575 and 582 are left out: they
 * carry a scale factor register (576, note 4); the float registers give the same quantities.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");
const uint32 = registersOf(3, "uint32");

export const kostalPlenticore: DeviceTemplate = {
  brand: "KOSTAL",
  model: "PLENTICORE plus",
  kind: "hybrid inverter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  source: {
    title: "KOSTAL Interface description MODBUS (TCP) & SunSpec with control information, PIKO IQ / PLENTICORE",
    version: "Revision 2.7, release date 20.11.2025",
    url: "https://cdn-production.kostal.com/-/media/document-library-folder---kse/2023/11/16/13/29/ba_kostal-interface-description-modbus-tcp_sunspec_hybrid.pdf",
    checkedWith: "kilianknoll/kostal-modbusquery (register table of the Sep 2020 interface description)",
    checkedAgainst:
      "Section 1.6 (data formats), 2.1.2 (data encoding, CDAB default), 2.1.4 (read holding registers, addresses from zero), 3.1 (port 1502, unit id 71), table 3.2 pages 17-20 (address, unit, format and function code of every register) with notes 2 (inverter states), 4 (scale factors) and 7 (byte order)",
  },
  notes:
    'Enable Modbus TCP in the inverter\'s web interface; it listens on port 1502 at unit id 71. With the Modbus byte order set to "big-endian (SunSpec)" override byte_order to ABCD. Only one client should read at a time.',
  registers: [
    uint32("inverter_state", 56, null, null, "Inverter state (note 2: 0 off, 6 FeedIn, 7 Throttled, 10 Standby, ...)"),
    float("dc_power", 100, "W", null, "Total DC power"),
    float("home_consumption_from_battery", 106, "W", null, "Home own consumption from battery"),
    float("home_consumption_from_grid", 108, "W", null, "Home own consumption from grid"),
    float("home_consumption_from_pv", 116, "W", null, "Home own consumption from PV"),
    float("cos_phi", 150, null, null, "Actual cos phi"),
    float("frequency", 152, "Hz", null, "Grid frequency"),
    float("current_l1", 154, "A", null, "Current phase 1"),
    float("power_l1", 156, "W", null, "Active power phase 1"),
    float("voltage_l1", 158, "V", null, "Voltage phase 1"),
    float("active_power", 172, "W", null, "Total AC active power"),
    float("battery_current", 200, "A", null, "Actual battery charge (-) / discharge (+) current"),
    float("battery_soc", 210, "%", null, "Actual state of charge"),
    float("battery_temperature", 214, "°C", null, "Battery temperature"),
    float("battery_voltage", 216, "V", null, "Battery voltage"),
    float(
      "grid_power",
      252,
      "W",
      null,
      "Total active power (powermeter); at the grid connection (+) supply, (-) feed-in",
    ),
    float("energy_total", 320, "Wh", null, "Total yield"),
    float("energy_today", 322, "Wh", null, "Daily yield"),
  ],
  examples: {
    inverter_state: { words: [0x0006, 0x0000], value: 6 },
    dc_power: { words: [0x6000, 0x449a], value: 1235 },
    home_consumption_from_battery: { words: [0x7000, 0x449a], value: 1235.5 },
    home_consumption_from_grid: { words: [0x8000, 0x449a], value: 1236 },
    home_consumption_from_pv: { words: [0x9000, 0x449a], value: 1236.5 },
    cos_phi: { words: [0x3333, 0x3f73], value: 0.95 },
    frequency: { words: [0x147b, 0x4248], value: 50.02 },
    current_l1: { words: [0x0000, 0x410a], value: 8.625 },
    power_l1: { words: [0xd000, 0x449a], value: 1238.5 },
    voltage_l1: { words: [0xe666, 0x436a], value: 234.9 },
    active_power: { words: [0xf000, 0x449a], value: 1239.5 },
    battery_current: { words: [0x0000, 0xc14a], value: -12.625 },
    battery_soc: { words: [0x0000, 0x4268], value: 58 },
    battery_temperature: { words: [0x0000, 0x41b4], value: 22.5 },
    battery_voltage: { words: [0x4000, 0x43c9], value: 402.5 },
    grid_power: { words: [0x5000, 0xc49a], value: -1234.5 },
    energy_total: { words: [0x20d8, 0x4971], value: 987661.5 },
    energy_today: { words: [0x20e0, 0x4971], value: 987662 },
  },
};
