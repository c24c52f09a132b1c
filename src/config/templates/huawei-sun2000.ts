/**
 * Huawei SUN2000 (L1, M0/M1/M2 and the other models of the interface definitions), PV and
 * hybrid inverter, Modbus TCP through the SDongle or the inverter's own port, or RTU.
 *
 * Source: Huawei, "Solar Inverter Modbus Interface Definitions", issue 04 (2022-03-29),
 * chapter 3 register definitions (tables 3-1 inverter, 3-2 battery, 3-3 meter): registers
 * read with function code 03 (6.3.3) at the addresses the document gives (no offset),
 * big-endian words; "gain" divides the raw value (gain 1000 is scale 0.001). The meter
 * (37113) and battery (37760, 37765) registers need a Huawei power meter and a LUNA2000
 * battery. Read Device Identification (6.3.6.1, table 6-8) answers manufacturer name
 * "HUAWEI" and product code "SUN2000". The model example is one of table 1-1's model names.
 */
import { registersOf, textRegister } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint16 = registersOf(3, "uint16");
const int16 = registersOf(3, "int16");
const uint32 = registersOf(3, "uint32");
const int32 = registersOf(3, "int32");

export const huaweiSun2000: DeviceTemplate = {
  brand: "Huawei",
  model: "SUN2000",
  kind: "hybrid inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 30_000,
  source: {
    title: "Solar Inverter Modbus Interface Definitions",
    version: "Issue 04, 2022-03-29",
    url: "https://pdfhost.io/v/f.inq3jdp_Solar_Inverter_Modbus_Interface_Definitions",
    checkedWith: "wlcrs/huawei-solar-lib register map; evcc huawei-sun2000-hybrid template",
    checkedAgainst:
      "table 1-1 (model names), table 3-1 (No. 1 Model 30000, 26 Input power 32064, 30 Phase A voltage 32069, 33 Phase A current 32072, 37 Active power 32080, 38 Reactive power 32082, 39 Power factor 32084, 40 Grid frequency 32085, 42 Internal temperature 32087, 44 Device status 32089, 48 Accumulated energy yield 32106, 49 Daily energy yield 32114, 56 power meter active power 37113: type, unit, gain, address, quantity and scope of each), table 3-2 (No. 2 charge/discharge sign, 33 [Energy storage] SOC 37760, 37 [Energy storage] charge/discharge power 37765), table 3-3 (No. 8 meter active power sign), 6.2.2.3-6.2.2.4 (unit 0, port 6607), 6.3.3 (function 0x03), 6.3.6.1 table 6-8 (identification objects), in the copy committed to lbrucher/energy-monitor",
  },
  identify: { vendor: "HUAWEI", product: "SUN2000" },
  notes:
    "Modbus TCP must be enabled on the inverter (installer access). The document's own TCP access is port 6607 at unit 0 (6.2.2.3-6.2.2.4); the SDongle answers on port 502 at unit id 1 (older firmware 0). Huawei asks for at most one request per second and a pause after connecting.",
  registers: [
    textRegister(3, "model", 30000, 15, "Model"),
    int32("input_power", 32064, "kW", 0.001, "Input power (DC)"),
    uint16("voltage_l1", 32069, "V", 0.1, "Phase A voltage"),
    int32("current_l1", 32072, "A", 0.001, "Phase A current"),
    int32("active_power", 32080, "kW", 0.001, "Active power"),
    int32("reactive_power", 32082, "kvar", 0.001, "Reactive power"),
    int16("power_factor", 32084, null, 0.001, "Power factor"),
    uint16("frequency", 32085, "Hz", 0.01, "Grid frequency"),
    int16("internal_temperature", 32087, "°C", 0.1, "Internal temperature"),
    uint16("device_status", 32089, null, null, "Device status (0x0200 on-grid, 0x0300 shutdown, ...)"),
    uint32("energy_total", 32106, "kWh", 0.01, "Accumulated energy yield"),
    uint32("energy_today", 32114, "kWh", 0.01, "Daily energy yield"),
    int32("meter_active_power", 37113, "W", null, "Power meter active power (positive: feeding the grid)"),
    uint16("battery_soc", 37760, "%", 0.1, "Energy storage state of charge"),
    int32("battery_power", 37765, "W", null, "Energy storage charge/discharge power (positive: charging)"),
  ],
  examples: {
    model: {
      words: [
        0x5355, 0x4e32, 0x3030, 0x302d, 0x3130, 0x4b54, 0x4c2d, 0x4d31, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000,
        0x0000,
      ],
      value: "SUN2000-10KTL-M1",
      fromDocument: "table 1-1, model SUN2000-10KTL-M1 (model ID 429)",
    },
    input_power: { words: [0x0000, 0x1538], value: 5.432 },
    voltage_l1: { words: [0x0902], value: 230.6 },
    current_l1: { words: [0x0000, 0x1408], value: 5.128 },
    active_power: { words: [0x0000, 0x14a7], value: 5.287 },
    reactive_power: { words: [0xffff, 0xff88], value: -0.12 },
    power_factor: { words: [0x03e6], value: 0.998 },
    frequency: { words: [0x138a], value: 50.02 },
    internal_temperature: { words: [0x019d], value: 41.3 },
    device_status: { words: [0x0200], value: 512 },
    energy_total: { words: [0x0012, 0xd68a], value: 12345.7 },
    energy_today: { words: [0x0012, 0xd68b], value: 12345.71 },
    meter_active_power: { words: [0xffff, 0xfcc2], value: -830 },
    battery_soc: { words: [0x0271], value: 62.5 },
    battery_power: { words: [0xffff, 0xfa10], value: -1520 },
  },
};
