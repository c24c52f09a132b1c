/**
 * Victron Energy GX devices (Cerbo GX, Venus GX, Color Control GX) as the Modbus TCP
 * gateway of an ESS or off-grid system: the system summary (com.victronenergy.system) at
 * unit id 100.
 *
 * Source: Victron Energy, "CCGX Modbus-TCP register list" (the spreadsheet published with
 * the GX firmware), 3.00 (CCGX-Modbus-TCP-register-list-3.00.xlsx, whose "Document versions"
 * tab runs to Rev 44), tab "Field list": its first row says to use unit id 100 for
 * com.victronenergy.system; each row gives the address (column C), type (D), the scale factor
 * to divide by (E: battery voltage and current 10, the others 1), range and unit (I), and in
 * the remarks the signs (battery current and power positive while charging) and the battery
 * state enumeration. The spreadsheet gives ranges, not readings: no example is its own.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");
const int16 = registersOf(3, "int16");

export const victronGx: DeviceTemplate = {
  brand: "Victron Energy",
  model: "GX system",
  kind: "battery",
  byteOrder: "ABCD",
  pollIntervalMs: 10_000,
  source: {
    title: "CCGX Modbus-TCP register list (com.victronenergy.system)",
    version: "3.00",
    url: "https://www.victronenergy.com/upload/documents/CCGX-Modbus-TCP-register-list-3.00.xlsx",
    checkedWith: "evcc victron-energy template",
    checkedAgainst:
      "tab Document versions (to Rev 44), tab Field list, row 1 (unit id 100 for com.victronenergy.system) and the com.victronenergy.system rows 808, 817-822, 840-844 and 850 (address, type, scalefactor, range, dbus-unit and remarks of each), read in the copy committed to manuel-lohmus/victronenergy-modbustcp-api (afbf75a)",
  },
  notes:
    "Enable Modbus TCP on the GX device (Settings > Services). The system values are at unit id 100; other devices behind the GX have their own unit ids (Settings > Services > Modbus TCP > Available services).",
  registers: [
    uint16("pv_ac_output_l1", 808, "W", null, "PV - AC-coupled on output L1"),
    uint16("consumption_l1", 817, "W", null, "AC consumption L1"),
    uint16("consumption_l2", 818, "W", null, "AC consumption L2"),
    uint16("consumption_l3", 819, "W", null, "AC consumption L3"),
    int16("grid_l1", 820, "W", null, "Grid L1 (positive: import)"),
    int16("grid_l2", 821, "W", null, "Grid L2"),
    int16("grid_l3", 822, "W", null, "Grid L3"),
    uint16("battery_voltage", 840, "V", 0.1, "Battery voltage (system)"),
    int16("battery_current", 841, "A", 0.1, "Battery current (system, positive: charging)"),
    int16("battery_power", 842, "W", null, "Battery power (system, positive: charging)"),
    uint16("battery_soc", 843, "%", null, "Battery state of charge (system)"),
    uint16("battery_state", 844, null, null, "Battery state: 0 idle, 1 charging, 2 discharging"),
    uint16("pv_dc_power", 850, "W", null, "PV - DC-coupled power"),
  ],
  examples: {
    pv_ac_output_l1: { words: [0x04d2], value: 1234 },
    consumption_l1: { words: [0x04d3], value: 1235 },
    consumption_l2: { words: [0x04d4], value: 1236 },
    consumption_l3: { words: [0x04d5], value: 1237 },
    grid_l1: { words: [0xfec0], value: -320 },
    grid_l2: { words: [0x0096], value: 150 },
    grid_l3: { words: [0x004b], value: 75 },
    battery_voltage: { words: [0x020c], value: 52.4 },
    battery_current: { words: [0xff85], value: -12.3 },
    battery_power: { words: [0xfd7b], value: -645 },
    battery_soc: { words: [0x004e], value: 78 },
    battery_state: { words: [0x0002], value: 2 },
    pv_dc_power: { words: [0x04de], value: 1246 },
  },
};
