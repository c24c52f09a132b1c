/**
 * Circutor CVM-C10, three-phase power analyzer (CVM-C10-ITF, -MC, -mV and -FLEX variants with
 * RS-485), Modbus RTU.
 *
 * Source: Circutor, "CVM-C10 Power analyzer, Instruction Manual" (M001B01-03), section
 * 4.10.3.1 "Measurement variables", table 20 "Modbus memory map (Table 1)": every address is
 * hexadecimal, each variable takes two registers (instantaneous value at the first address of
 * its "00-01" pair), read with functions 0x03 and 0x04, in the unit the table gives (V x 10,
 * mA, W, var, VA, PF x 100, Hz x 100). Section 4.10.2.1 gives the word order and its own
 * example: reading 2 registers from 0000 answers 0000 084D, "value of the phase voltage of L1:
 * VL1 x 10 : 212.5V" (high word first), and "every Modbus frame has a maximum limit of 20
 * variables (40 logs)". That example is voltage_l1's.
 *
 * Replaces the Janitza B23 template of the previous round: no copy of Janitza's B23/B24
 * manual could be read.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const unsigned = registersOf(4, "uint32");
const signed = registersOf(4, "int32");

export const circutorCvmC10: DeviceTemplate = {
  brand: "Circutor",
  model: "CVM-C10",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 40,
  source: {
    title: "CVM-C10 Power analyzer, Instruction Manual, 4.10 Modbus (table 20, Modbus memory map)",
    version: "M001B01-03 (edition letter not shown on the Modbus pages read)",
    url: "https://www.easymanua.ls/circutor/cvm-c10/manual?p=74",
    checkedWith:
      "star.ke.st connector library, Circutor CVM-C10 map (the same addresses 0x00-0x40, 32-bit, high word first)",
    checkedAgainst:
      "manual page 73 (manualslib.com copy) and 74 (easymanua.ls copy): section 4.10.2 (functions 0x03 and 0x04 read integer registers), 4.10.2.1 (reading example 0A 04 0000 0002, answer 0000 084D = VL1 x 10 = 212.5 V: two registers, high word first; at most 20 variables, 40 registers, a frame), 4.10.3.1 table 20 (hexadecimal address pair and unit of each instantaneous variable)",
  },
  notes:
    "RS-485, Modbus RTU; set the peripheral number and speed on the device. At most 40 registers a request (20 variables). Values are 32-bit integers, high word first, in the manual's units: voltage in tenths of a volt, current in mA, power in W/var/VA, power factor and frequency in hundredths. The pages read do not say whether active power and power factor carry a sign when energy is exported; the template reads them as signed (two's complement), which gives the same value for consumption.",
  registers: [
    unsigned("voltage_l1", 0x00, "V", 0.1, "L1 phase voltage (V x 10)"),
    unsigned("current_l1", 0x02, "A", 0.001, "L1 current (mA)"),
    signed("power_l1", 0x04, "W", null, "L1 active power"),
    unsigned("apparent_power_l1", 0x0a, "VA", null, "L1 apparent power"),
    signed("power_factor_l1", 0x0c, null, 0.01, "L1 power factor (x 100)"),
    unsigned("voltage_l2", 0x10, "V", 0.1, "L2 phase voltage (V x 10)"),
    unsigned("current_l2", 0x12, "A", 0.001, "L2 current (mA)"),
    signed("power_l2", 0x14, "W", null, "L2 active power"),
    unsigned("apparent_power_l2", 0x1a, "VA", null, "L2 apparent power"),
    signed("power_factor_l2", 0x1c, null, 0.01, "L2 power factor (x 100)"),
    unsigned("voltage_l3", 0x20, "V", 0.1, "L3 phase voltage (V x 10)"),
    unsigned("current_l3", 0x22, "A", 0.001, "L3 current (mA)"),
    signed("power_l3", 0x24, "W", null, "L3 active power"),
    unsigned("apparent_power_l3", 0x2a, "VA", null, "L3 apparent power"),
    signed("power_factor_l3", 0x2c, null, 0.01, "L3 power factor (x 100)"),
    signed("active_power", 0x30, "W", null, "Active three-phase power (kW III)"),
    unsigned("reactive_power_inductive", 0x32, "var", null, "Inductive three-phase power (kvarL III)"),
    unsigned("reactive_power_capacitive", 0x34, "var", null, "Capacitive three-phase power (kvarC III)"),
    unsigned("apparent_power", 0x36, "VA", null, "Apparent three-phase power (kVA III)"),
    signed("power_factor", 0x38, null, 0.01, "Three-phase power factor (PF III, x 100)"),
    unsigned("frequency", 0x3c, "Hz", 0.01, "L1 frequency (Hz x 100)"),
    unsigned("voltage_l1_l2", 0x3e, "V", 0.1, "L1-L2 voltage (V x 10)"),
    unsigned("voltage_l2_l3", 0x40, "V", 0.1, "L2-L3 voltage (V x 10)"),
  ],
  examples: {
    voltage_l1: { words: [0x0000, 0x084d], value: 212.5, fromDocument: "section 4.10.2.1, reading example" },
    current_l1: { words: [0x0000, 0x19e1], value: 6.625 },
    power_l1: { words: [0x0000, 0x05b7], value: 1463 },
    apparent_power_l1: { words: [0x0000, 0x05fb], value: 1531 },
    power_factor_l1: { words: [0x0000, 0x005f], value: 0.95 },
    voltage_l2: { words: [0x0000, 0x0905], value: 230.9 },
    current_l2: { words: [0x0000, 0x1bd5], value: 7.125 },
    power_l2: { words: [0x0000, 0x0626], value: 1574 },
    apparent_power_l2: { words: [0x0000, 0x0669], value: 1641 },
    power_factor_l2: { words: [0x0000, 0x0060], value: 0.96 },
    voltage_l3: { words: [0x0000, 0x090a], value: 231.4 },
    current_l3: { words: [0x0000, 0x1dc9], value: 7.625 },
    power_l3: { words: [0x0000, 0x069a], value: 1690 },
    apparent_power_l3: { words: [0x0000, 0x06e5], value: 1765 },
    power_factor_l3: { words: [0x0000, 0x005e], value: 0.94 },
    active_power: { words: [0x0000, 0x1277], value: 4727 },
    reactive_power_inductive: { words: [0x0000, 0x057d], value: 1405 },
    reactive_power_capacitive: { words: [0x0000, 0x000c], value: 12 },
    apparent_power: { words: [0x0000, 0x1349], value: 4937 },
    power_factor: { words: [0x0000, 0x0061], value: 0.97 },
    frequency: { words: [0x0000, 0x138a], value: 50.02 },
    voltage_l1_l2: { words: [0x0000, 0x0f9f], value: 399.9 },
    voltage_l2_l3: { words: [0x0000, 0x0fa5], value: 400.5 },
  },
};
