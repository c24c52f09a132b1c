/**
 * Carlo Gavazzi EM340 (and EM330, ET330, ET340), three-phase energy analyser, Modbus RTU.
 *
 * Source: Carlo Gavazzi, "EM300 Series and ET300 Series Communication Protocol", version 2
 * revision 17 (July 05, 2021). Table 2.4-1 gives each variable's physical address (the
 * protocol address), INT32 or INT16 and its "value weight" (Volt*10, Ampere*1000, Watt*10,
 * PF*1000, Hz*10, kWh*10); section 1.2: functions 03h and 04h "have exactly the same
 * effect", at most 50 registers a request; section 2.1: in INT32 "the word order is
 * LSW->MSW" (CDAB). The identification code (table 2.8-2: 341 for EM340-DIN AV2 3 X S1 X)
 * and the 3-decimal totalizer (table 2.5-1: "if kWh=1234.567, value=1234" and 567) are the
 * document's own examples.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const int32 = registersOf(3, "int32");
const int16 = registersOf(3, "int16");
const uint16 = registersOf(3, "uint16");

export const carloGavazziEm340: DeviceTemplate = {
  brand: "Carlo Gavazzi",
  model: "EM340",
  kind: "energy meter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 50,
  source: {
    title: "EM300 Series and ET300 Series Communication Protocol (EM330/EM340/ET330/ET340)",
    version: "Version 2 Revision 17, July 05, 2021",
    url: "https://github.com/jenicek001/em340d/blob/main/docs/EM330_EM340_ET330_ET340_CP.pdf",
    checkedWith:
      "volkszaehler/mbmd meters/rs485/carlogavazzi-ex3x0.go; victronenergy/dbus-modbus-client carlo_gavazzi.py",
    checkedAgainst:
      "section 1.2 (functions 03h/04h, 50 registers a request), section 2.1 (INT32 word order LSW->MSW), table 2.4-1 (addresses, formats, value weights of every measured register), table 2.5-1 (3-decimal totalizer), tables 2.8-1/2.8-2 (identification code)",
  },
  notes:
    "Default 9600 baud, 8 data bits, no parity, 1 stop bit, address 1. 32-bit values are low word first (CDAB); at most 50 registers a request. energy_import_kwh and energy_import_fraction exist only in meters made from October 1st 2018 (serial YR2018 274xxxS on): exclude them on older ones.",
  registers: [
    int32("voltage_l1", 0x0000, "V", 0.1, "V L1-N"),
    int32("voltage_l2", 0x0002, "V", 0.1, "V L2-N"),
    int32("voltage_l3", 0x0004, "V", 0.1, "V L3-N"),
    uint16(
      "identification_code",
      0x000b,
      null,
      null,
      "Carlo Gavazzi Controls identification code (341: EM340-DIN AV2 3 X S1)",
    ),
    int32("current_l1", 0x000c, "A", 0.001, "A L1"),
    int32("current_l2", 0x000e, "A", 0.001, "A L2"),
    int32("current_l3", 0x0010, "A", 0.001, "A L3"),
    int32("power_l1", 0x0012, "W", 0.1, "W L1"),
    int32("power_l2", 0x0014, "W", 0.1, "W L2"),
    int32("power_l3", 0x0016, "W", 0.1, "W L3"),
    int32("active_power", 0x0028, "W", 0.1, "W sys"),
    int16("power_factor", 0x0031, null, 0.001, "PF sys (negative: exported active power)"),
    int16("frequency", 0x0033, "Hz", 0.1, "Hz"),
    int32("energy_import", 0x0034, "kWh", 0.1, "kWh (+) TOT"),
    int32("energy_import_l1", 0x0040, "kWh", 0.1, "kWh (+) L1"),
    int32("energy_import_l2", 0x0042, "kWh", 0.1, "kWh (+) L2"),
    int32("energy_import_l3", 0x0044, "kWh", 0.1, "kWh (+) L3"),
    int32("energy_export", 0x004e, "kWh", 0.1, "kWh (-) TOT"),
    int32("energy_import_kwh", 0x0400, "kWh", null, "kWh (+) TOT, integer part (meters from October 2018)"),
    int32("energy_import_fraction", 0x0402, "kWh", 0.001, "kWh (+) TOT, decimal part (meters from October 2018)"),
  ],
  examples: {
    voltage_l1: { words: [0x0900, 0x0000], value: 230.4 },
    voltage_l2: { words: [0x0901, 0x0000], value: 230.5 },
    voltage_l3: { words: [0x0902, 0x0000], value: 230.6 },
    identification_code: { words: [0x0155], value: 341, fromDocument: "table 2.8-2, EM340-DIN AV2 3 X S1 X" },
    current_l1: { words: [0x1408, 0x0000], value: 5.128 },
    current_l2: { words: [0x1409, 0x0000], value: 5.129 },
    current_l3: { words: [0x140a, 0x0000], value: 5.13 },
    power_l1: { words: [0x303f, 0x0000], value: 1235.1 },
    power_l2: { words: [0x3040, 0x0000], value: 1235.2 },
    power_l3: { words: [0x3041, 0x0000], value: 1235.3 },
    active_power: { words: [0x3042, 0x0000], value: 1235.4 },
    power_factor: { words: [0xfc4a], value: -0.95 },
    frequency: { words: [0x01f5], value: 50.1 },
    energy_import: { words: [0xe24c, 0x0001], value: 12346.8 },
    energy_import_l1: { words: [0xe24d, 0x0001], value: 12346.9 },
    energy_import_l2: { words: [0xe24e, 0x0001], value: 12347 },
    energy_import_l3: { words: [0xe24f, 0x0001], value: 12347.1 },
    energy_export: { words: [0xe250, 0x0001], value: 12347.2 },
    energy_import_kwh: {
      words: [0x04d2, 0x0000],
      value: 1234,
      fromDocument: "table 2.5-1, 0400h: kWh=1234.567, value=1234",
    },
    energy_import_fraction: {
      words: [0x0237, 0x0000],
      value: 0.567,
      fromDocument: "table 2.5-1, 0402h: kWh=1234.567, value=567",
    },
  },
};
