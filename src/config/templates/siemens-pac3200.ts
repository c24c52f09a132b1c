/**
 * Siemens SENTRON PAC3200, power monitoring device (7KM2111-1BA00-3AA0 and the other PAC3200
 * variants), Modbus TCP on its Ethernet port (Modbus RTU with the RS485 expansion module).
 *
 * Source: Siemens, "SENTRON PAC3200 Power Monitoring Device, Manual", 02/2008,
 * A5E01168664B-04, section 3.9.3 "Modbus measured variables with the function codes 0x03 and
 * 0x04", table 3-6 "Available measured variables": each variable's offset (the start address
 * of the read request: "please ensure the start offset of the register is correct when
 * making read accesses"), number of registers (2), format (Float), unit and value range.
 * "You can use the MODBUS function codes 0x03 and 0x04 on all the measured variables listed";
 * a read that starts in the second register of a value is answered with an error code.
 * The template has the variables of that table from offset 1 to 45 (the page read in full);
 * the energy counters and the other totals are in parts of the manual whose text could not
 * be read here, so they are left out.
 *
 * The word order of a Float is not stated on the page read: high word first (ABCD), as in the
 * aggsoft PAC3200 map. Replaces the SENTRON PAC2200 template of the previous round: no copy of the PAC2200
 * manual (L1V30415167B) could be read with its offset column.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const float = registersOf(3, "float32");

export const siemensPac3200: DeviceTemplate = {
  brand: "Siemens",
  model: "PAC3200",
  kind: "energy meter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title: "SENTRON PAC3200 Power Monitoring Device, Manual, table 3-6 Available measured variables",
    version: "Manual, 02/2008, A5E01168664B-04",
    url: "https://manualshive.com/en/manual/siemens/sentron-pac3200/381223?page=40",
    checkedWith: "aggsoft.com Siemens Sentron PAC 3200 MODBUS register map (offsets 1-45, single float)",
    checkedAgainst:
      "section 3.9.3, table 3-6 (page 40): offset, number of registers, format Float, unit and value range of each of offsets 1 to 45; function codes 0x03 and 0x04 (section 3.9.3, 'Addressing the measured variables'); the offset is the request's start address",
  },
  notes:
    "Modbus TCP on port 502 of the Ethernet port. Offsets are the protocol addresses as the manual gives them (no -1). A read must start at a value's first register (the manual: a read that starts in the second register is answered with an error code). Float values are IEEE 754 single precision; the page read does not state their word order, the template reads them high word first (ABCD) as the aggsoft PAC3200 map does. Power factors are 0 ... 1 (the manual's value range). Energy counters are not in this template (see its source note).",
  registers: [
    float("voltage_l1", 1, "V", null, "Voltage Va-n"),
    float("voltage_l2", 3, "V", null, "Voltage Vb-n"),
    float("voltage_l3", 5, "V", null, "Voltage Vc-n"),
    float("voltage_l1_l2", 7, "V", null, "Voltage Va-b"),
    float("voltage_l2_l3", 9, "V", null, "Voltage Vb-c"),
    float("voltage_l3_l1", 11, "V", null, "Voltage Vc-a"),
    float("current_l1", 13, "A", null, "Current a"),
    float("current_l2", 15, "A", null, "Current b"),
    float("current_l3", 17, "A", null, "Current c"),
    float("apparent_power_l1", 19, "VA", null, "Apparent Power a"),
    float("apparent_power_l2", 21, "VA", null, "Apparent Power b"),
    float("apparent_power_l3", 23, "VA", null, "Apparent Power c"),
    float("power_l1", 25, "W", null, "Active Power a"),
    float("power_l2", 27, "W", null, "Active Power b"),
    float("power_l3", 29, "W", null, "Active Power c"),
    float("reactive_power_l1", 31, "var", null, "Reactive Power a"),
    float("reactive_power_l2", 33, "var", null, "Reactive Power b"),
    float("reactive_power_l3", 35, "var", null, "Reactive Power c"),
    float("power_factor_l1", 37, null, null, "Power Factor a (0 ... 1)"),
    float("power_factor_l2", 39, null, null, "Power Factor b (0 ... 1)"),
    float("power_factor_l3", 41, null, null, "Power Factor c (0 ... 1)"),
    float("thd_voltage_l1", 43, "%", null, "THD-R Voltage a (0 ... 100 %)"),
    float("thd_voltage_l2", 45, "%", null, "THD-R Voltage b (0 ... 100 %)"),
  ],
  examples: {
    voltage_l1: { words: [0x4366, 0x6666], value: 230.4 },
    voltage_l2: { words: [0x4366, 0xe666], value: 230.9 },
    voltage_l3: { words: [0x4367, 0x6666], value: 231.4 },
    voltage_l1_l2: { words: [0x43c7, 0xa000], value: 399.25 },
    voltage_l2_l3: { words: [0x43c8, 0x4000], value: 400.5 },
    voltage_l3_l1: { words: [0x43c7, 0x6000], value: 398.75 },
    current_l1: { words: [0x40d4, 0x0000], value: 6.625 },
    current_l2: { words: [0x40e4, 0x0000], value: 7.125 },
    current_l3: { words: [0x40f4, 0x0000], value: 7.625 },
    apparent_power_l1: { words: [0x44bf, 0x5000], value: 1530.5 },
    apparent_power_l2: { words: [0x44cd, 0x2800], value: 1641.25 },
    apparent_power_l3: { words: [0x44dc, 0x9000], value: 1764.5 },
    power_l1: { words: [0x44b6, 0xd000], value: 1462.5 },
    power_l2: { words: [0x44c4, 0xb800], value: 1573.75 },
    power_l3: { words: [0x44d3, 0x4800], value: 1690.25 },
    reactive_power_l1: { words: [0xc3d7, 0xc000], value: -431.5 },
    reactive_power_l2: { words: [0xc3e9, 0xa000], value: -467.25 },
    reactive_power_l3: { words: [0xc3fc, 0xe000], value: -505.75 },
    power_factor_l1: { words: [0x3f74, 0x7ae1], value: 0.955 },
    power_factor_l2: { words: [0x3f75, 0xc28f], value: 0.96 },
    power_factor_l3: { words: [0x3f75, 0x3f7d], value: 0.958 },
    thd_voltage_l1: { words: [0x4010, 0x0000], value: 2.25 },
    thd_voltage_l2: { words: [0x4020, 0x0000], value: 2.5 },
  },
};
