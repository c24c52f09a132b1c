/**
 * GARO GNM3D (GNM3D-RS485 and the MID GNM3D-LP variants), three-phase DIN-rail energy meter,
 * Modbus RTU.
 *
 * Source: GARO, "GNM3D Series and GNM3T Series Communication Protocol", Version 1 Revision 1:
 * table 2.4-1 "Instantaneous variables and meters (grouped by variable type)", read with
 * function code 03 or 04 at the physical addresses the table gives beside the 6-digit
 * Modicom numbers (300001 -> 0000h). Section 2.1: INT32 values are sent least significant
 * word first, each word MSB first (CDAB); the "value weight" column gives the scale
 * (Volt*10, Ampere*1000, Watt*10, VA*10, var*10, PF*1000, Hz*10, kWh*10, kvarh*10).
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const int32 = registersOf(4, "int32");
const int16 = registersOf(4, "int16");

export const garoGnm3d: DeviceTemplate = {
  brand: "GARO",
  model: "GNM3D",
  kind: "energy meter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  // Sections 1.2.1/1.2.2 give 1 to 14h (20) registers as the request's quantity field.
  maxRegistersPerRequest: 20,
  source: {
    title: "GNM3D Series and GNM3T Series Communication Protocol",
    version: "Version 1 Revision 1",
    url: "https://github.com/nmakel/sdm_modbus/blob/master/documents/garo_gnm3d_modbus_protocol.pdf",
    checkedAgainst:
      "Table 2.4-1 Instantaneous variables and meters (page 9): Modicom and physical address, length, INT32/INT16 format and value weight of each; section 1.2.2 Function 04h (page 4); section 2.1 data format (INT32 word order LSW->MSW, page 7); table 2.8-7 serial port configuration menu (pages 12-13) for the defaults",
  },
  notes:
    "Factory settings (table 2.8-7): address 1, 9600 baud, no parity, 1 stop bit. At most 20 registers a request (the request frames' quantity field). Signs of power and the (-) energies need the bidirectional measurement mode B (holding register 1103h; MID model GNM3D-LP); in easy connection mode (A) power is always positive. A variable over its range reads 7FFFFFFFh (overflow, shown as EEE).",
  registers: [
    int32("voltage_l1", 0x0000, "V", 0.1, "V L1-N"),
    int32("voltage_l2", 0x0002, "V", 0.1, "V L2-N"),
    int32("voltage_l3", 0x0004, "V", 0.1, "V L3-N"),
    int32("voltage_l1_l2", 0x0006, "V", 0.1, "V L1-L2"),
    int32("voltage_l2_l3", 0x0008, "V", 0.1, "V L2-L3"),
    int32("voltage_l3_l1", 0x000a, "V", 0.1, "V L3-L1"),
    int32("current_l1", 0x000c, "A", 0.001, "A L1"),
    int32("current_l2", 0x000e, "A", 0.001, "A L2"),
    int32("current_l3", 0x0010, "A", 0.001, "A L3"),
    int32("power_l1", 0x0012, "W", 0.1, "kW L1 (value weight Watt*10; negative: export in bidirectional mode)"),
    int32("power_l2", 0x0014, "W", 0.1, "kW L2"),
    int32("power_l3", 0x0016, "W", 0.1, "kW L3"),
    int32("voltage_ln_average", 0x0024, "V", 0.1, "V L-N sys"),
    int32("voltage_ll_average", 0x0026, "V", 0.1, "V L-L sys"),
    int32("active_power", 0x0028, "W", 0.1, "kW sys (value weight Watt*10)"),
    int32("apparent_power", 0x002a, "VA", 0.1, "kVA sys (value weight VA*10)"),
    int32("reactive_power", 0x002c, "var", 0.1, "kvar sys (value weight var*10)"),
    int16("power_factor", 0x0031, null, 0.001, "PF sys (negative: exported active power)"),
    int16("frequency", 0x0033, "Hz", 0.1, "Hz"),
    int32("energy_import", 0x0034, "kWh", 0.1, "kWh (+) TOT"),
    int32("reactive_energy_import", 0x0036, "kvarh", 0.1, "kvarh (+) TOT"),
    int32("power_demand", 0x0038, "W", 0.1, "kW dmd"),
    int32("power_demand_peak", 0x003a, "W", 0.1, "kW dmd peak"),
    int32("energy_export", 0x004e, "kWh", 0.1, "kWh (-) TOT"),
    int32("reactive_energy_export", 0x0050, "kvarh", 0.1, "kvarh (-) TOT"),
  ],
  examples: {
    voltage_l1: { words: [0x08fd, 0x0000], value: 230.1 },
    voltage_l2: { words: [0x0903, 0x0000], value: 230.7 },
    voltage_l3: { words: [0x08f6, 0x0000], value: 229.4 },
    voltage_l1_l2: { words: [0x0f98, 0x0000], value: 399.2 },
    voltage_l2_l3: { words: [0x0f91, 0x0000], value: 398.5 },
    voltage_l3_l1: { words: [0x0fa3, 0x0000], value: 400.3 },
    current_l1: { words: [0x3039, 0x0000], value: 12.345 },
    current_l2: { words: [0x2e1a, 0x0000], value: 11.802 },
    current_l3: { words: [0x117f, 0x0001], value: 70.015 },
    power_l1: { words: [0x6eba, 0x0000], value: 2834.6 },
    power_l2: { words: [0x69e8, 0x0000], value: 2711.2 },
    power_l3: { words: [0xc54d, 0xffff], value: -1502.7 },
    voltage_ln_average: { words: [0x08fc, 0x0000], value: 230.0 },
    voltage_ll_average: { words: [0x0f99, 0x0000], value: 399.3 },
    active_power: { words: [0x9def, 0x0000], value: 4043.1 },
    apparent_power: { words: [0xab84, 0x0000], value: 4390.8 },
    reactive_power: { words: [0xe814, 0xffff], value: -612.4 },
    power_factor: { words: [0x0399], value: 0.921 },
    frequency: { words: [0x01f3], value: 49.9 },
    energy_import: { words: [0x5b59, 0x0007], value: 48213.7 },
    reactive_energy_import: { words: [0xc803, 0x0000], value: 5120.3 },
    power_demand: { words: [0x9baf, 0x0000], value: 3985.5 },
    power_demand_peak: { words: [0x6448, 0x0001], value: 9120.8 },
    energy_export: { words: [0x35bf, 0x0000], value: 1375.9 },
    reactive_energy_export: { words: [0x1902, 0x0000], value: 640.2 },
  },
};
