/**
 * SMA Sunny Tripower PV inverters with the SMA Modbus profile, Modbus TCP. The list checked
 * is that of the STP 15000TL-30 .. 25000TL-30; for another model, compare with its own list.
 *
 * Source: SMA, "Modbus® Parameters and Measured Values" for STP 15000TL-30 / STP 17000TL-30 /
 * STP 20000TL-30 / STP 25000TL-30, valid from firmware 2.83.03.R (SMA download
 * MODBUS-HTML_STPTL-30_028303R_V10), with SMA's "SMA and SunSpec Modbus Interface" technical
 * information SMA-Modbus-general-TI-en-10, version 1.0: register addresses of the SMA profile
 * are protocol addresses (only SunSpec addresses carry the offset 1), unit id 3 by default,
 * "Big Endian" (high word first, ABCD); FIX2 is two decimals (scale 0.01), TEMP one. NaN
 * ("no value") is 0x80000000 for S32, 0xFFFFFFFF for U32, 0xFFFFFD for a status value (only
 * its lower 24 bits are used), 0xFFFFFFFFFFFFFFFF for U64 (beyond an exact number: left to
 * the reader).
 */
import { noValueAt, registersOf } from "./define.ts";
import type { DeviceTemplate } from "./types.ts";

const uint64 = registersOf(3, "uint64");
/** TAGLIST values (a status code): only the lower 24 bits are used, so their NaN is 0xFFFFFD. */
const tagList = noValueAt(registersOf(3, "uint32"), 0xfffffd);
// The SMA Modbus profile's NaN ("no value") of U32 and S32 measurements: read as null.
const uint32 = noValueAt(registersOf(3, "uint32"), 0xffffffff);
const int32 = noValueAt(registersOf(3, "int32"), -0x80000000);

export const smaSunnyTripower: DeviceTemplate = {
  brand: "SMA",
  model: "Sunny Tripower",
  kind: "PV inverter",
  byteOrder: "ABCD",
  pollIntervalMs: 15_000,
  source: {
    title:
      "Modbus Parameters and Measured Values, STP 15000TL-30 / 17000TL-30 / 20000TL-30 / 25000TL-30, with the technical information SMA and SunSpec Modbus Interface",
    version:
      "list MODBUS-HTML_STPTL-30_028303R_V10 (firmware from 2.83.03.R); SMA-Modbus-general-TI-en-10, version 1.0",
    checkedWith: "evcc sma-inverter-modbus template; ioBroker SMA register lists",
    checkedAgainst:
      "The list's rows 30201, 30513, 30517, 30769, 30771, 30773, 30775, 30783, 30803, 30953 (number of registers, SMA data type, format, access, unit, value range); technical information sections 3.5.1 (unit id 3), 3.5.3 (SunSpec offset only), 3.5.4 (Big Endian), 3.5.7 (data types and NaN values), 3.5.8 (data formats FIXn, TEMP, TAGLIST)",
  },
  notes:
    "Enable Modbus TCP on the inverter (installer). SMA devices answer at unit id 3. A value the device does not have (the SMA NaN, e.g. DC values at night) reads as null.",
  registers: [
    tagList("condition", 30201, null, null, "Condition (Operation.Health): 35 fault, 303 off, 307 Ok, 455 warning"),
    uint64("energy_total", 30513, "Wh", null, "Total yield (Metering.TotWhOut, U64 FIX0)"),
    uint64("energy_today", 30517, "Wh", null, "Daily yield (Metering.DyWhOut)"),
    int32("dc_current_a", 30769, "A", 0.001, "DC current input A"),
    int32("dc_voltage_a", 30771, "V", 0.01, "DC voltage input A"),
    int32("dc_power_a", 30773, "W", null, "DC power input A"),
    int32("active_power", 30775, "W", null, "Power (GridMs.TotW)"),
    uint32("voltage_l1", 30783, "V", 0.01, "Grid voltage phase L1"),
    uint32("frequency", 30803, "Hz", 0.01, "Grid frequency"),
    int32("internal_temperature", 30953, "°C", 0.1, "Internal temperature"),
  ],
  examples: {
    condition: { words: [0x0000, 0x0133], value: 307, fromDocument: "row 30201, value range: 307: Ok (Ok)" },
    energy_total: { words: [0x0000, 0x0000, 0x02b9, 0x0135], value: 45678901 },
    energy_today: { words: [0x0000, 0x0000, 0x0000, 0x5ba0], value: 23456 },
    dc_current_a: { words: [0x0000, 0x1408], value: 5.128 },
    dc_voltage_a: { words: [0x0000, 0x5a04], value: 230.44 },
    dc_power_a: { words: [0x0000, 0x0f3c], value: 3900 },
    active_power: { words: [0x0000, 0x1d1a], value: 7450 },
    voltage_l1: { words: [0x0000, 0x5a07], value: 230.47 },
    frequency: { words: [0x0000, 0x138a], value: 50.02 },
    internal_temperature: { words: [0x0000, 0x01b9], value: 44.1 },
  },
};
