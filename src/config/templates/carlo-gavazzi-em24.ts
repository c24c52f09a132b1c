/**
 * Carlo Gavazzi EM24 DIN, three-phase energy analyser (the Ethernet version EM24DINAV..E1 with
 * Modbus TCP, and the RS485 versions), registers 0000h to 002Dh only.
 *
 * No copy of the Ethernet protocol (EM24_E1 communication protocol) could be read. The
 * Carlo Gavazzi document read for the EM24 family is "EM24-DIN PFA, PFB & X models -
 * Communication Protocol", Version 4 Revision 0 of December 3, 2012 (the title page of the
 * scribd.com copy; the sections below were read in the manualshelf.com copy, which does not
 * mirror its title page): section 1.2 ("the functions 03h and 04h have exactly the same
 * effect"; "it is possible to read maximum 11 registers (words) with a single request, when
 * not differently specified"; the "physical address" is the word address in the frame),
 * section 2.1 ("for all the formats the byte order (inside the single word) is MSB->LSB. In
 * INT32 ... formats, the word order is LSW->MSW", so CDAB) and table 2.3-1 (instantaneous
 * variables: physical address, INT32, value weight Volt*10, Ampere*1000, Watt*10, VA*10,
 * var*10). This template keeps the 23 variables that table gives at 0000h-002Ch. From 002Eh
 * on, the RS485 table (DMD W at 002Eh, power factors at 0032h, Hz at 0037h, kWh(+) TOT at
 * 003Eh) differs from the addresses the previous template had for the Ethernet version
 * (power factors at 002Eh, Hz at 0033h, kWh at 0034h, from peer implementations only), so
 * power factor, frequency, demand, energy and hour meter are left out: add them per site
 * (config `registers`) from the protocol of the installed version.
 */
import { registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const int32 = registersOf(3, "int32");

export const carloGavazziEm24: DeviceTemplate = {
  brand: "Carlo Gavazzi",
  model: "EM24",
  kind: "energy meter",
  byteOrder: "CDAB",
  pollIntervalMs: 15_000,
  maxRegistersPerRequest: 11,
  source: {
    title: "EM24-DIN PFA, PFB & X models - Communication Protocol, table 2.3-1 instantaneous variables and meters",
    version: "Version 4 Revision 0, December 3, 2012",
    url: "https://www.manualshelf.com/manual/carlo-gavazzi/em24dinav93xo2x/3-2-1-user-manual-english/page-8.html",
    checkedWith:
      "the EM21 communication protocol V1 Rev0 (Carlo Gavazzi, same table 2.3-1 from 0000h to 002Ch); victronenergy/dbus-modbus-client carlo_gavazzi.py",
    checkedAgainst:
      "title page (version and date) in the copy at scribd.com/document/725241920; in the manualshelf.com copy, whose title page is not mirrored: section 1.2 (functions 03h/04h, at most 11 registers a request, physical address), section 2.1 (byte order MSB->LSB, INT32 word order LSW->MSW), table 2.3-1 (physical address, INT32 and value weight of each register 0000h-002Ch)",
  },
  notes:
    "Registers 0000h-002Dh only (voltages, currents, active, apparent and reactive power per phase and system), the part of the map Carlo Gavazzi's EM24-DIN protocol gives and the Ethernet version shares; power factor, frequency, demand and energy are at different addresses in different EM24 versions and are left out (add them per site from the protocol of the installed version). 32-bit values are sent low word first (CDAB). Functions 03 and 04 both read them; at most 11 registers a request. Phase values not used by the measuring system read as 0.",
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
    int32("power_l1", 0x0012, "W", 0.1, "W L1"),
    int32("power_l2", 0x0014, "W", 0.1, "W L2"),
    int32("power_l3", 0x0016, "W", 0.1, "W L3"),
    int32("apparent_power_l1", 0x0018, "VA", 0.1, "VA L1"),
    int32("apparent_power_l2", 0x001a, "VA", 0.1, "VA L2"),
    int32("apparent_power_l3", 0x001c, "VA", 0.1, "VA L3"),
    int32("reactive_power_l1", 0x001e, "var", 0.1, "VAR L1"),
    int32("reactive_power_l2", 0x0020, "var", 0.1, "VAR L2"),
    int32("reactive_power_l3", 0x0022, "var", 0.1, "VAR L3"),
    int32("voltage_ln", 0x0024, "V", 0.1, "V L-N system"),
    int32("voltage_ll", 0x0026, "V", 0.1, "V L-L system"),
    int32("active_power", 0x0028, "W", 0.1, "W system"),
    int32("apparent_power", 0x002a, "VA", 0.1, "VA system"),
    int32("reactive_power", 0x002c, "var", 0.1, "VAR system"),
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
  },
};
