/**
 * Carlo Gavazzi EM24 DIN, three-phase energy analyser, Ethernet version (EM24DINAV..E1, Modbus
 * TCP). Not for the RS485 versions: "EM24-DIN PFA, PFB & X models - Communication Protocol",
 * table 2.3-1, has the same registers up to 002Ch but DMD W at 002Eh, the power factors at
 * 0032h-0035h, Hz at 0037h and kWh(+) TOT at 003Eh.
 *
 * Source: Carlo Gavazzi, "EM24 Ethernet (EM24_E1) Communication Protocol", table of
 * instantaneous variables and meters,
 * https://www.enika.eu/data/files/produkty/energy%20m/CP/em24%20ethernet%20cp.pdf
 * and the EM21/EM24-DIN communication protocol, table 2.3-1 (the same addresses 0000h..0036h,
 * "read only mode with functions code 03 and 04"). Data format, section 2.1: "the byte order (inside the single
 * word) is MSB->LSB. In INT32 ... formats, the word order is LSW->MSW" - so 32-bit values are
 * CDAB. "Value weight" gives the scale: Volt*10, Ampere*1000, Watt*10, PF*1000, Hz*10, kWh*10.
 * Cross-checked against victronenergy/dbus-modbus-client carlo_gavazzi.py (EM24 Ethernet:
 * 0x0028 power, 0x0033 frequency, 0x0034 and 0x004e energy, 0x0040.. energy per phase) and
 * OpenEMS io.openems.edge.meter.carlo.gavazzi.em24 (RS485, LSW first, function code 03).
 */
import type { DeviceTemplate, TemplateRegister } from "./types.ts";

function int32(
  name: string,
  address: number,
  unit: string,
  scaleFactor: number,
  description: string,
): TemplateRegister {
  return { name, address, functionCode: 3, dataType: "int32", unit, scaleFactor, description };
}

function int16(
  name: string,
  address: number,
  unit: string | null,
  scaleFactor: number | null,
  description: string,
): TemplateRegister {
  return { name, address, functionCode: 3, dataType: "int16", unit, scaleFactor, description };
}

export const carloGavazziEm24: DeviceTemplate = {
  brand: "Carlo Gavazzi",
  model: "EM24",
  kind: "energy meter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  source: {
    title: "EM24 Ethernet Communication Protocol (EM24_E1); EM21/EM24-DIN communication protocol, table 2.3-1",
    version: "Carlo Gavazzi EM24_E1 protocol, version as published by Enika",
    url: "https://www.enika.eu/data/files/produkty/energy%20m/CP/em24%20ethernet%20cp.pdf",
    checkedWith: "victronenergy/dbus-modbus-client carlo_gavazzi.py; OpenEMS meter.carlo.gavazzi.em24",
  },
  notes:
    "For the Ethernet version (EM24..E1) only: the RS485 versions (PFA, PFB, X) place demand, power factor, frequency and energy at other addresses. 32-bit values are sent low word first (CDAB). Function codes 03 and 04 both read these registers. Phase values not used by the measuring system (3Pn, 3P, 2P, 1P) read as 0.",
  registers: [
    int32("voltage_l1", 0x0000, "V", 0.1, "Voltage L1-N"),
    int32("voltage_l2", 0x0002, "V", 0.1, "Voltage L2-N"),
    int32("voltage_l3", 0x0004, "V", 0.1, "Voltage L3-N"),
    int32("voltage_l1_l2", 0x0006, "V", 0.1, "Voltage L1-L2"),
    int32("voltage_l2_l3", 0x0008, "V", 0.1, "Voltage L2-L3"),
    int32("voltage_l3_l1", 0x000a, "V", 0.1, "Voltage L3-L1"),
    int32("current_l1", 0x000c, "A", 0.001, "Current L1"),
    int32("current_l2", 0x000e, "A", 0.001, "Current L2"),
    int32("current_l3", 0x0010, "A", 0.001, "Current L3"),
    int32("power_l1", 0x0012, "W", 0.1, "Active power L1"),
    int32("power_l2", 0x0014, "W", 0.1, "Active power L2"),
    int32("power_l3", 0x0016, "W", 0.1, "Active power L3"),
    int32("apparent_power_l1", 0x0018, "VA", 0.1, "Apparent power L1"),
    int32("apparent_power_l2", 0x001a, "VA", 0.1, "Apparent power L2"),
    int32("apparent_power_l3", 0x001c, "VA", 0.1, "Apparent power L3"),
    int32("reactive_power_l1", 0x001e, "var", 0.1, "Reactive power L1"),
    int32("reactive_power_l2", 0x0020, "var", 0.1, "Reactive power L2"),
    int32("reactive_power_l3", 0x0022, "var", 0.1, "Reactive power L3"),
    int32("voltage_ln", 0x0024, "V", 0.1, "System voltage L-N"),
    int32("voltage_ll", 0x0026, "V", 0.1, "System voltage L-L"),
    int32("active_power", 0x0028, "W", 0.1, "System active power"),
    int32("apparent_power", 0x002a, "VA", 0.1, "System apparent power"),
    int32("reactive_power", 0x002c, "var", 0.1, "System reactive power"),
    int16(
      "power_factor_l1",
      0x002e,
      null,
      0.001,
      "Power factor L1 (negative: lead/capacitive, positive: lag/inductive)",
    ),
    int16("power_factor_l2", 0x002f, null, 0.001, "Power factor L2"),
    int16("power_factor_l3", 0x0030, null, 0.001, "Power factor L3"),
    int16("power_factor", 0x0031, null, 0.001, "System power factor"),
    int16("phase_sequence", 0x0032, null, null, "Phase sequence: 0 = L1-L2-L3, -1 = L1-L3-L2 (3-phase systems only)"),
    {
      name: "frequency",
      address: 0x0033,
      functionCode: 3,
      dataType: "uint16",
      unit: "Hz",
      scaleFactor: 0.1,
      description: "Frequency",
    },
    int32("energy_import", 0x0034, "kWh", 0.1, "Total imported active energy, kWh(+) TOT"),
    int32("reactive_energy_import", 0x0036, "kvarh", 0.1, "Total imported reactive energy, kvarh(+) TOT"),
    int32("power_demand", 0x0038, "W", 0.1, "System active power demand"),
    int32("power_demand_max", 0x003a, "W", 0.1, "Maximum system active power demand"),
    int32("energy_import_l1", 0x0040, "kWh", 0.1, "Imported active energy L1"),
    int32("energy_import_l2", 0x0042, "kWh", 0.1, "Imported active energy L2"),
    int32("energy_import_l3", 0x0044, "kWh", 0.1, "Imported active energy L3"),
    int32("energy_export", 0x004e, "kWh", 0.1, "Total exported active energy, kWh(-) TOT"),
    int32("reactive_energy_export", 0x0050, "kvarh", 0.1, "Total exported reactive energy, kvarh(-) TOT"),
    int32("run_hours", 0x005a, "h", 0.01, "Hour meter"),
  ],
  examples: {
    voltage_l1: { words: [0x0900, 0x0000], value: 230.4 },
    voltage_l2: { words: [0x0901, 0x0000], value: 230.5 },
    voltage_l3: { words: [0x0902, 0x0000], value: 230.6 },
    voltage_l1_l2: { words: [0x0f97, 0x0000], value: 399.1 },
    voltage_l2_l3: { words: [0x0fa2, 0x0000], value: 400.2 },
    voltage_l3_l1: { words: [0x0f93, 0x0000], value: 398.7 },
    current_l1: { words: [0x140b, 0x0000], value: 5.131 },
    current_l2: { words: [0x140c, 0x0000], value: 5.132 },
    current_l3: { words: [0x140d, 0x0000], value: 5.133 },
    power_l1: { words: [0x3042, 0x0000], value: 1235.4 },
    power_l2: { words: [0x3043, 0x0000], value: 1235.5 },
    power_l3: { words: [0x3044, 0x0000], value: 1235.6 },
    apparent_power_l1: { words: [0x32d6, 0x0000], value: 1301.4 },
    apparent_power_l2: { words: [0x32d7, 0x0000], value: 1301.5 },
    apparent_power_l3: { words: [0x32d8, 0x0000], value: 1301.6 },
    reactive_power_l1: { words: [0xf7ba, 0xffff], value: -211.8 },
    reactive_power_l2: { words: [0xf7b9, 0xffff], value: -211.9 },
    reactive_power_l3: { words: [0xf7b8, 0xffff], value: -212 },
    voltage_ln: { words: [0x0912, 0x0000], value: 232.2 },
    voltage_ll: { words: [0x0f99, 0x0000], value: 399.3 },
    active_power: { words: [0x304d, 0x0000], value: 1236.5 },
    apparent_power: { words: [0x32df, 0x0000], value: 1302.3 },
    reactive_power: { words: [0xf7b3, 0xffff], value: -212.5 },
    power_factor_l1: { words: [0x03d9], value: 0.985 },
    power_factor_l2: { words: [0xfc36], value: -0.97 },
    power_factor_l3: { words: [0x03de], value: 0.99 },
    power_factor: { words: [0x03d6], value: 0.982 },
    phase_sequence: { words: [0x0000], value: 0 },
    frequency: { words: [0x01f5], value: 50.1 },
    energy_import: { words: [0xe25d, 0x0001], value: 12348.5 },
    reactive_energy_import: { words: [0x0caf, 0x0000], value: 324.7 },
    power_demand: { words: [0x3058, 0x0000], value: 1237.6 },
    power_demand_max: { words: [0x3059, 0x0000], value: 1237.7 },
    energy_import_l1: { words: [0xe261, 0x0001], value: 12348.9 },
    energy_import_l2: { words: [0xe262, 0x0001], value: 12349 },
    energy_import_l3: { words: [0xe263, 0x0001], value: 12349.1 },
    energy_export: { words: [0xe264, 0x0001], value: 12349.2 },
    reactive_energy_export: { words: [0x0cb6, 0x0000], value: 325.4 },
    run_hours: { words: [0xe260, 0x0001], value: 1234.88 },
  },
};
