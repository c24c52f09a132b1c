/**
 * Eltako DSZ15DZMOD, three-phase MID energy meter with Modbus RTU (integer data format).
 *
 * Source: Eltako, "Modbus-RTU protocol specification for DSZ15DZMOD V1.6". Section 3.1
 * "value data" gives each measured value's start address (the protocol address; its
 * "number" column is the Modicon 3xxxx number, one higher), read with function code 04;
 * every value is 4 bytes in two registers, high word first (section 1.2.1 and remark 2).
 * Remark 1: all values except power and power factor are unsigned with 2 decimals, power
 * is signed without decimals, power factor signed with 3. Section 3.2 "parameter data"
 * lists the holding registers (function code 03). The sample answer of section 2.1.2
 * (4.61 kWh imported, 3.68 kWh exported), the pulse-mode answer of section 2.2.2 and the
 * meter code 0000000D of section 3.2 are the document's own examples.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint32 = registersOf(4, "uint32");
const int32 = registersOf(4, "int32");
const parameter = registersOf(3, "uint32");

export const eltakoDsz15dzmod: DeviceTemplate = {
  brand: "Eltako",
  model: "DSZ15DZMOD",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "Modbus-RTU protocol specification for DSZ15DZMOD",
    version: "V1.6",
    url: "https://github.com/balloobbot/eltako-modbus/blob/main/docs/DSZ15DZMOD-modbus-rtu-v1.6.pdf",
    checkedWith: "volkszaehler/mbmd meters/rs485/eltako.go; balloobbot/eltako-modbus src/eltako_modbus/dsz15dzmod",
    checkedAgainst:
      "section 1 (9600 bps, 8 data bits, 1 stop bit, no parity; register byte and word order), section 2.1 and 2.2 (function codes 04 and 03 and their sample frames), section 3.1 table and remarks 1-2 (address, type, sign and decimals of every measured value), section 3.2 (pulse mode 0056h, meter code FC02h)",
  },
  notes:
    "Factory settings (section 1): 9600 bps, 8 data bits, 1 stop bit, no parity; set the address (1-250) on the meter or in holding register 0014h. Power is read in W: the V1.6 table's unit column says kW for a value without decimals, Eltako's later Modbus-RTU specification V3.7.4 says W.",
  registers: [
    uint32("voltage_l1", 0x0000, "V", 0.01, "Voltage of L1 to N"),
    uint32("voltage_l2", 0x0002, "V", 0.01, "Voltage of L2 to N"),
    uint32("voltage_l3", 0x0004, "V", 0.01, "Voltage of L3 to N"),
    uint32("current_l1", 0x0006, "A", 0.01, "L1 current"),
    uint32("current_l2", 0x0008, "A", 0.01, "L2 current"),
    uint32("current_l3", 0x000a, "A", 0.01, "L3 current"),
    int32("power_l1", 0x000c, "W", null, "L1 active power"),
    int32("power_l2", 0x000e, "W", null, "L2 active power"),
    int32("power_l3", 0x0010, "W", null, "L3 active power"),
    int32("power_factor_l1", 0x001e, null, 0.001, "L1 power factor"),
    int32("power_factor_l2", 0x0020, null, 0.001, "L2 power factor"),
    int32("power_factor_l3", 0x0022, null, 0.001, "L3 power factor"),
    int32("active_power", 0x0034, "W", null, "Total active power"),
    int32("power_factor", 0x003e, null, 0.001, "Total power factor"),
    uint32("energy_import", 0x0048, "kWh", 0.01, "Total import active energy"),
    uint32("energy_export", 0x004a, "kWh", 0.01, "Total export active energy"),
    parameter("pulse_mode", 0x0056, null, null, "Pulse mode of the S0 output (default 2: total active)"),
    parameter("meter_code", 0xfc02, null, null, "Meter code"),
  ],
  examples: {
    voltage_l1: { words: [0x0000, 0x5a00], value: 230.4 },
    voltage_l2: { words: [0x0000, 0x5a01], value: 230.41 },
    voltage_l3: { words: [0x0000, 0x5a02], value: 230.42 },
    current_l1: { words: [0x0000, 0x0203], value: 5.15 },
    current_l2: { words: [0x0000, 0x0204], value: 5.16 },
    current_l3: { words: [0x0000, 0x0205], value: 5.17 },
    power_l1: { words: [0x0000, 0x04d8], value: 1240 },
    power_l2: { words: [0x0000, 0x04d9], value: 1241 },
    power_l3: { words: [0xffff, 0xfb26], value: -1242 },
    power_factor_l1: { words: [0x0000, 0x03df], value: 0.991 },
    power_factor_l2: { words: [0x0000, 0x03de], value: 0.99 },
    power_factor_l3: { words: [0xffff, 0xfc23], value: -0.989 },
    active_power: { words: [0x0000, 0x04dc], value: 1244 },
    power_factor: { words: [0x0000, 0x03d9], value: 0.985 },
    energy_import: {
      words: [0x0000, 0x01cd],
      value: 4.61,
      fromDocument: "section 2.1.2, answer CC 04 08 00 00 01 CD ...: 4.61 kWh total import",
    },
    energy_export: {
      words: [0x0000, 0x0170],
      value: 3.68,
      fromDocument: "section 2.1.2, answer ... 00 00 01 70 ...: 3.68 kWh total export",
    },
    pulse_mode: { words: [0x0000, 0x0002], value: 2, fromDocument: "section 2.2.2, answer CC 03 04 00 00 00 02" },
    meter_code: { words: [0x0000, 0x000d], value: 13, fromDocument: "section 3.2, 464515 meter code 0000000D" },
  },
};
